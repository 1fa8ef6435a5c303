"""The dashboard's HTTP serving against a real daemon: the page from its folder and nothing
outside it, a read-only API that names what exists, the token guarding the API (not the page),
malformed or hostile HTTP answered with an error while the daemon goes on serving RPC and HTTP,
and a dashboard address in use reported."""
import http.client
import json
import socket
import urllib.parse

import pytest

from conftest import Daemon
from dashboard_helpers import dashboard, get, start_client, status  # noqa: F401


def test_the_page_is_served_from_its_folder_and_nothing_else(dashboard):
    code, headers, body = get(dashboard.dashboard_url)
    assert code == 200 and headers["Content-Type"].startswith("text/html") and b"<title>" in body
    code, headers, body = get(dashboard.dashboard_url + "assets/app.js")
    assert code == 200 and headers["Content-Type"].startswith("text/javascript")
    for path in ["../secret.txt", "assets/../../secret.txt", "%2e%2e/secret.txt",
                 "assets//app.js", "./index.html", "nothere.js", "assets"]:
        conn = http.client.HTTPConnection(urllib.parse.urlsplit(dashboard.dashboard_url).netloc,
                                          timeout=10)
        conn.request("GET", "/" + path)  # as written: no client-side normalisation
        r = conn.getresponse()
        assert r.status == 404, path
        assert b"outside the page folder" not in r.read()
        conn.close()


def test_the_api_is_read_only_and_names_what_exists(dashboard):
    code, headers, body = get(dashboard.dashboard_url + "api/status", method="POST")
    assert code == 405 and headers["Allow"] == "GET, HEAD"
    assert "read-only" in json.loads(body)["error"]
    code, _, body = get(dashboard.dashboard_url + "api/sessions")
    assert code == 404 and "/api/status, /api/profile and /api/profile/timeline" in json.loads(body)["error"]
    code, headers, body = get(dashboard.dashboard_url + "api/status", method="HEAD")
    assert code == 200 and body == b"" and int(headers["Content-Length"]) > 0


def raw_exchange(url, data, read=True):
    host, port = urllib.parse.urlsplit(url).netloc.split(":")
    chunks = []
    with socket.create_connection((host, int(port)), timeout=10) as s:
        try:
            s.sendall(data)
            if not read:
                return b""
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except OSError:  # reset, broken pipe, not connected
            pass  # the daemon hung up on us: what it said before, if anything, is the answer
    return b"".join(chunks)


def test_malformed_http_gets_an_error_and_the_daemon_serves_on(dashboard):
    url = dashboard.dashboard_url
    reply = raw_exchange(url, b"\x00\x01garbage\r\n\r\n")
    assert reply.split(b" ", 2)[1] in (b"400", b"501"), reply[:100]  # kj-http's answers
    huge = b"GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
    reply = raw_exchange(url, huge)
    assert reply == b"" or reply.split(b" ", 2)[1] in (b"400", b"431"), reply[:100]
    raw_exchange(url, b"GET /api/sta", read=False)  # a client gone mid-request
    # A body kj-http cannot drain after the answer: answered, and not an error line in the log
    # per request (any client could fill the log).
    for _ in range(3):
        reply = raw_exchange(url, b"GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        assert reply.startswith(b"HTTP/1.1 404"), reply[:100]
    assert "threw exception" not in dashboard.log() and " error: " not in dashboard.log()
    # An RPC client and the API both still work.
    client = start_client(dashboard, "after-garbage")
    try:
        assert any(s["name"] == "after-garbage" for s in status(dashboard)["sessions"])
    finally:
        client.stdin.close()
        client.wait(timeout=30)


def test_the_token_guards_the_api_not_the_page(tmp_path):
    d = Daemon(args=["--token", "s3cret", "--dashboard", "tcp:127.0.0.1:0",
                     "--dashboard-dir", str(tmp_path / "not-built")])
    try:
        code, _, body = get(d.dashboard_url + "api/status")
        assert code == 401 and "Bearer" in json.loads(body)["error"]
        assert get(d.dashboard_url + "api/status", {"Authorization": "Bearer wrong"})[0] == 401
        assert get(d.dashboard_url + "api/status", {"Authorization": "s3cret"})[0] == 401
        assert status(d, {"Authorization": "Bearer s3cret"})["totals"]["sessions"] == 0
        # No page in that folder: / says so, and where the API is.
        code, _, body = get(d.dashboard_url)
        assert code == 404 and b"not built" in body and b"/api/status" in body
    finally:
        failure = d.stop()
    assert failure is None, failure


def test_a_dashboard_address_in_use_is_reported(dashboard):
    port = urllib.parse.urlsplit(dashboard.dashboard_url).port
    with pytest.raises(RuntimeError, match="cannot listen on tcp:127.0.0.1:%d" % port):
        Daemon(args=["--dashboard", "tcp:127.0.0.1:%d" % port])
