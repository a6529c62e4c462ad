#!/usr/bin/env python3
"""A scripted HTTP(S) server on loopback for the upload tests (standard library only).

    upload_server.py --script SCRIPT.json --record RECORD.jsonl [--cert PEM --key PEM]

It listens on 127.0.0.1 on a free port and prints that port on stdout (one line) once it accepts
connections. Every request is appended to RECORD as one JSON line:
    {"method": ..., "path": ..., "headers": {lower-case name: value}, "body": ...}
and answered with the next entry of SCRIPT's "responses" list (then with "default" for ever):
    {"status": 200, "headers": {...}, "body": "text"}     plain reply
    {"status": 200, "json": {...}}                         JSON reply
    {"stall": 30}                                          read the request, answer nothing
    {"sse": [["event", "data"], ...]}                      a text/event-stream, then close
The tests run it as a child and kill it when they end.
"""
import argparse
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, script, record):
        self.lock = threading.Lock()
        self.responses = list(script.get("responses", []))
        self.default = script.get("default", {"status": 200, "json": {"ok": True}})
        self.record = record

    def next(self, entry):
        with self.lock:
            with open(self.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
            return self.responses.pop(0) if self.responses else self.default


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up early (capped replies, timeouts) is expected here


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, *args):
        pass  # quiet: the record file is the log

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
        }
        resp = self.state.next(entry)
        if "stall" in resp:
            time.sleep(resp["stall"])
            self.close_connection = True
            return
        status = resp.get("status", 200)
        if "sse" in resp:
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for event, data in resp["sse"]:
                self.wfile.write(f"event: {event}\ndata: {data}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True
            return
        if "json" in resp:
            payload = json.dumps(resp["json"]).encode()
            ctype = "application/json"
        else:
            payload = resp.get("body", "").encode()
            ctype = "text/plain"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in resp.get("headers", {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    args = ap.parse_args()
    with open(args.script, encoding="utf-8") as f:
        Handler.state = State(json.load(f), args.record)
    server = Server(("127.0.0.1", 0), Handler)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
