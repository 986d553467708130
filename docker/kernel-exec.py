#!/usr/bin/env python3
"""docker/kernel-exec.py: runs code in a new kernel of a Jupyter server through its REST and
websocket API, as a browser would, and prints what the kernel sent back.

    $DASHLAB_VENV/bin/python docker/kernel-exec.py URL TOKEN KERNEL CODE [EXPECT_REGEX]

URL is the server (http://127.0.0.1:8888), TOKEN its token, KERNEL a kernel name (gonb).
The kernel is started with POST /api/kernels, the code is sent as an execute_request on
/api/kernels/ID/channels, and the kernel is shut down with DELETE afterwards. Exit status 0
when the execution ends without an error and its output matches EXPECT_REGEX (when given).
docker/container-check.sh uses it. Needs tornado (Debian's Jupyter brings it).
"""

import datetime
import json
import os
import re
import sys
import uuid

from tornado import httpclient, ioloop, websocket

TIMEOUT_S = 180


def message(session, msg_type, content):
    return {
        "header": {
            "msg_id": uuid.uuid4().hex,
            "username": "kernel-exec",
            "session": session,
            "msg_type": msg_type,
            "version": "5.3",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        },
        "parent_header": {},
        "metadata": {},
        "content": content,
        "channel": "shell",
        "buffers": [],
    }


async def run(url, token, kernel, code):
    http = httpclient.AsyncHTTPClient()
    auth = {"Authorization": "token " + token}
    reply = await http.fetch(url + "/api/kernels", method="POST", headers=auth,
                             body=json.dumps({"name": kernel}), request_timeout=60)
    kernel_id = json.loads(reply.body)["id"]
    print("kernel %s started (%s)" % (kernel_id, kernel))
    try:
        session = uuid.uuid4().hex
        ws_url = url.replace("http", "ws", 1) + "/api/kernels/%s/channels?session_id=%s" % (kernel_id, session)
        conn = await websocket.websocket_connect(
            httpclient.HTTPRequest(ws_url, headers=auth, request_timeout=60))
        request = message(session, "execute_request", {
            "code": code, "silent": False, "store_history": False,
            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
        await conn.write_message(json.dumps(request))
        out, status, idle = [], None, False
        while True:
            raw = await conn.read_message()
            if raw is None:
                raise RuntimeError("the websocket closed before the execution ended")
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                out.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                out.append("%s: %s\n" % (content["ename"], content["evalue"]))
                out.extend(line + "\n" for line in content.get("traceback", []))
            elif kind == "execute_reply":
                status = content["status"]
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
            if os.environ.get("KERNEL_EXEC_DEBUG"):
                print("<- %s %s" % (msg.get("channel"), kind), file=sys.stderr)
            # The reply (shell channel) and the idle status (iopub) come in either order.
            if status and idle:
                break
        conn.close()
        return status, "".join(out)
    finally:
        await http.fetch(url + "/api/kernels/" + kernel_id, method="DELETE", headers=auth)
        print("kernel %s shut down" % kernel_id)


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    url, token, kernel, code = sys.argv[1:5]
    expect = sys.argv[5] if len(sys.argv) == 6 else None
    status, out = ioloop.IOLoop.current().run_sync(
        lambda: run(url.rstrip("/"), token, kernel, code), timeout=TIMEOUT_S)
    print("execution %s; output:\n%s" % (status, out.rstrip()))
    if status != "ok":
        return 1
    if expect and not re.search(expect, out):
        print("the output does not match %r" % expect)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
