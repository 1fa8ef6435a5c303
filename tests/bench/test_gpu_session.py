"""scripts/gpu-session's time keeping, which a lent GPU machine (15 minutes of device time, one
call) cannot afford to find broken: one deadline for the whole session, each step's limit cut
to what is left of it, steps skipped once too little is left, the summary written to $OUT after
every step and, on TERM, the logs archived before exit. The steps here are small shell programs
in a build folder of the test's own that pass, sleep or skip: what is under test is the script
that schedules them, not the CUDA programs (those skip without a GPU: test_gpu.py)."""
import os
import signal
import subprocess
import tarfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "gpu-session")


def program(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/usr/bin/env bash\n" + body + "\n")
    os.chmod(path, 0o755)


@pytest.fixture
def build(tmp_path):
    b = tmp_path / "build"
    (b / "bin").mkdir(parents=True)
    (b / "lib").mkdir()
    (b / "COMMIT").write_text("abc123\n")
    program(b / "bin", "tensord-precompile", 'echo "identity: sm_90 nvrtc 13000 -minimal"')
    return b


def session(build, out, env, **kw):
    # The scratch folder goes under the test's own TMPDIR, so that the tests can see it removed.
    scratch = out.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    e = dict(os.environ, OUT=str(out), GPU_SESSION_STEPS="tests", TMPDIR=str(scratch),
             GPU_SESSION_KERNELS=str(build / "none.tar.xz"))
    e.update(env)
    return subprocess.Popen(["bash", SCRIPT, str(build)], cwd=ROOT, env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def rows(out):
    """The step table of summary.txt: {step: (status, seconds)}."""
    table = {}
    for line in (out / "summary.txt").read_text().splitlines():
        # printf '%-40s %-20s %6s  %s': name, status, seconds, note (maybe empty).
        if line.startswith("tensord_"):
            table[line[:40].strip()] = line[41:61].strip(), int(line[62:68])
    return table


def test_steps_are_cut_to_the_deadline_and_skipped_past_it(build, tmp_path):
    bin_ = build / "bin"
    program(bin_, "tensord_gpu_a_fast", 'echo "All tests passed (3 assertions in 1 test case)"')
    program(bin_, "tensord_gpu_b_slow", "sleep 60")
    program(bin_, "tensord_gpu_c_late", "echo never")
    program(bin_, "tensord_gpu_d_nodevice", 'echo "WARN: skipped, no usable CUDA device"; exit 77')
    out = tmp_path / "out"
    t0 = time.monotonic()
    p = session(build, out, {"GPU_SESSION_DEADLINE": "45", "GPU_SESSION_TEST_LIMIT": "60"})
    log, _ = p.communicate(timeout=120)
    took = time.monotonic() - t0
    assert p.returncode == 1, log
    # 45 s less the 20 s kept for the end: the slow test gets what is left (about 25 s, less
    # what the start took on a loaded machine), not its 60; the two after it find under 10 s
    # and are skipped, saying why.
    assert took < 60, log
    table = rows(out)
    assert table["tensord_gpu_a_fast"][0] == "passed", table
    status, seconds = table["tensord_gpu_b_slow"]
    assert status.startswith("timed out ("), table
    assert 10 <= seconds <= 27, table
    assert table["tensord_gpu_c_late"][0] == "skipped (deadline)", table
    assert table["tensord_gpu_d_nodevice"][0] == "skipped (deadline)", table
    assert (out / "session.tar.xz").exists()
    # The pack carried no kernels: said as such, not as a failure of the cache check.
    assert "every kernel compiles here" in (out / "summary.txt").read_text()


def test_a_step_without_a_device_is_skipped_not_failed(build, tmp_path):
    program(build / "bin", "tensord_gpu_nodevice",
            'echo "WARN: skipped, no usable CUDA device: no driver"; exit 77')
    out = tmp_path / "out"
    p = session(build, out, {})
    log, _ = p.communicate(timeout=60)
    assert p.returncode == 0, log
    assert rows(out)["tensord_gpu_nodevice"][0] == "skipped"
    assert os.listdir(tmp_path / "scratch") == []  # the logs are in the archive only


def test_term_archives_what_ran_and_exits(build, tmp_path):
    program(build / "bin", "tensord_gpu_a_fast", 'echo "All tests passed"')
    program(build / "bin", "tensord_gpu_b_hangs", "sleep 300")
    out = tmp_path / "out"
    p = session(build, out, {}, start_new_session=True)
    # Wait until the hanging step runs (the summary then lists the first one); a loaded CI
    # machine may take a while to start bash.
    for _ in range(600):
        if (out / "summary.txt").exists() and "tensord_gpu_a_fast" in (out / "summary.txt").read_text():
            break
        time.sleep(0.1)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    log, _ = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 15, log
    assert p.returncode == 1, log
    text = (out / "summary.txt").read_text()
    assert "interrupted" in text, text
    assert rows(out)["tensord_gpu_a_fast"][0] == "passed"
    with tarfile.open(out / "session.tar.xz") as t:
        names = t.getnames()
    assert any(n.endswith("tests/tensord_gpu_a_fast.txt") for n in names), names
    assert os.listdir(tmp_path / "scratch") == []
    # The hanging step's process is gone with the session.
    r = subprocess.run(["pgrep", "-f", str(build / "bin" / "tensord_gpu_b_hangs")],
                       capture_output=True)
    assert r.returncode == 1, r.stdout


def test_kernels_of_another_commit_are_reported(build, tmp_path):
    kernels = tmp_path / "kernels"
    (kernels / "kernel-cache" / "cuda").mkdir(parents=True)
    (kernels / "kernel-cache" / "precompiled.txt").write_text("sm_90 nvrtc 13000 -minimal\n")
    (kernels / "kernel-cache" / "COMMIT").write_text("def456\n")
    archive = tmp_path / "kernel-cache.tar.xz"
    with tarfile.open(archive, "w:xz") as t:
        t.add(kernels / "kernel-cache", arcname="kernel-cache")
    out = tmp_path / "out"
    p = session(build, out, {"GPU_SESSION_KERNELS": str(archive)})
    log, _ = p.communicate(timeout=60)
    assert p.returncode == 1, log
    text = (out / "summary.txt").read_text()
    assert "programs of abc123, kernels of def456" in text, text


def test_studies_run_with_the_repeats_and_their_lines_reach_the_summary(build, tmp_path):
    # A study that fails still leaves the lines it printed; the other study runs after it.
    program(build / "bin", "tensord-a-study",
            'echo "{\\"bench\\":\\"a_study\\",\\"repeats\\":$1}"; echo "note on stderr" >&2')
    program(build / "bin", "tensord-b-study", 'echo "{\\"bench\\":\\"b_study\\"}"; exit 3')
    out = tmp_path / "out"
    p = session(build, out, {"GPU_SESSION_STEPS": "studies", "GPU_SESSION_REPEATS": "7"})
    log, _ = p.communicate(timeout=60)
    assert p.returncode == 1, log  # the failed study fails the session
    summary = (out / "summary.txt").read_text()
    assert "tensord-a-study" in summary and "passed" in summary, summary
    assert "failed (rc 3)" in summary, summary
    assert '{"bench":"a_study","repeats":7}' in summary, summary
    assert '{"bench":"b_study"}' in summary, summary
    assert "note on stderr" not in summary.split("bench/gpu/*_study.cu:")[1], summary


def test_fusion_figures_run_again_with_plain_launches(build, tmp_path):
    # The launch-bound figures run a second time on a daemon told to launch plainly; both sets
    # of lines reach the summary, told apart.
    program(build / "bin", "tensord-bench-fusion-gpu",
            'only=all; plain=no; while (($#)); do case $1 in --only) only=$2; shift;; '
            '--cuda-programmatic-launch) plain=yes;; esac; shift; done; '
            'echo "{\\"bench\\":\\"$only\\",\\"plain\\":\\"$plain\\"}"')
    out = tmp_path / "out"
    p = session(build, out, {"GPU_SESSION_STEPS": "bench-fusion"})
    log, _ = p.communicate(timeout=60)
    assert p.returncode == 0, log
    summary = (out / "summary.txt").read_text()
    figures, plain = summary.split("with --cuda-programmatic-launch off:")
    assert '{"bench":"all","plain":"no"}' in figures, summary
    for figure in ("graph_replay_200", "mlp_step_small"):
        assert '{"bench":"%s","plain":"yes"}' % figure in plain, summary
