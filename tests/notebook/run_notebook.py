"""Executes a notebook with `jupyter nbconvert --execute` against a tensord daemon started
here, and checks that every cell ran without an error and that the pending/evaluated displays
came out. Usage: run_notebook.py NOTEBOOK (TENSORD_BIN and PYTHONPATH as for the pytest run)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conftest import Daemon  # noqa: E402 (the pytest suite's daemon fixture class)


def outputs_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        for value in out.get("data", {}).values():
            parts.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(parts)


def main(notebook):
    daemon = Daemon()
    try:
        status = run(notebook, daemon)
    finally:
        # A daemon that does not exit cleanly fails the run (in a sanitizer build: its report).
        failure = daemon.stop()
    if failure is not None:
        print(f"the notebook's daemon did not exit cleanly, {failure}")
        return 1
    return status


def run(notebook, daemon):
    out_dir = tempfile.mkdtemp(prefix="tensord-nb-")
    try:
        env = dict(os.environ, TENSORD_ADDRESS=daemon.address)
        jupyter = shutil.which("jupyter") or "jupyter"
        p = subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute",
                            "--ExecutePreprocessor.timeout=300", "--output-dir", out_dir,
                            "--output", "executed.ipynb", notebook],
                           env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            print(p.stdout, p.stderr, daemon.log(), sep="\n")
            return 1
        with open(os.path.join(out_dir, "executed.ipynb")) as f:
            cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
        errors = [c for c in cells if any(o.get("output_type") == "error"
                                          for o in c.get("outputs", []))]
        if errors or not all(c.get("execution_count") for c in cells):
            print("cells failed or did not run:", errors)
            return 1
        texts = [outputs_text(c) for c in cells]
        checks = {
            "the README example printed values with shape and dtype":
                any("shape=(2, 10)" in t and "dtype=float32" in t for t in texts),
            "a large unevaluated array showed as pending":
                any("pending" in t for t in texts),
            "td.info showed the device": any("device cpu:0" in t for t in texts),
            "every comparison with NumPy passed": any("matmul" in t and "ok" in t for t in texts),
        }
        failed = [name for name, ok in checks.items() if not ok]
        if failed:
            print("missing from the notebook's outputs:", failed)
            return 1
        print(f"{len(cells)} code cells ran green against {daemon.address}")
        return 0
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
