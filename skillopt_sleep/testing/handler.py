"""The HTTP side of the model server: read a request, record it, write the answer."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .recorded import RecordedRequest, ServerView
from .replies import Error
from .wire import Answer, json_answer

CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class Server(ThreadingHTTPServer):
    """The HTTP server of a model server: it carries the model server its handlers answer for."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512  # a benchmark opens well over a hundred connections at once
    model_server: ServerView


class Handler(BaseHTTPRequestHandler):
    """Keep-alive HTTP/1.1: JSON answers carry Content-Length, SSE answers are chunked."""

    server: Server  # the base class types it as any server; the handler only runs under this one
    protocol_version = "HTTP/1.1"
    timeout = 120  # idle keep-alive connections are dropped eventually
    server_version = "loopback-model-server/1"

    @property
    def model_server(self) -> ServerView:
        return self.server.model_server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read srv.requests, not a log on stderr

    def do_HEAD(self) -> None:
        rec = self._record(None)
        self._send(Answer(body=b""), rec, head_only=True)

    def do_GET(self) -> None:
        rec = self._record(None)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("", "/"):
            answer = json_answer({"ok": True, "server": self.server_version})
        elif path == "/v1/models":
            answer = self.model_server.models_answer(rec.headers)
        elif self.model_server.batches.handles(path):
            answer = self.model_server.batches.get(path)
        else:
            answer = self.model_server.error_answer(None, Error(404, message=f"no route {path}"))
        self._send(answer, rec)

    def do_POST(self) -> None:
        raw = self._read_body()
        srv = self.model_server
        path = self.path.split("?", 1)[0].rstrip("/")
        if srv.batches.handles(path):
            rec = self._record(None)
            self._send(srv.batches.post(path, raw, rec.headers), rec)
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        rec = self._record(body)
        route = srv.route(self.path)
        if route is None:
            self._send(srv.error_answer(None, Error(404, message=f"no route {self.path}")), rec)
            return
        rec.api, parse = route
        if not isinstance(body, dict):
            err = Error(400, message="request body is not a JSON object")
            self._send(srv.error_answer(rec.api, err), rec)
            return
        rec.call = parse(self.path, body, rec.headers)
        self._send(srv.answer(rec), rec)

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self, body: Any) -> RecordedRequest:
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = RecordedRequest(self.command, self.path, headers, body)
        self.model_server.record(rec)
        return rec

    def _send(self, answer: Answer, rec: RecordedRequest, head_only: bool = False) -> None:
        # status and finish time are set before the last bytes go out: a client that has its
        # answer must find the record complete.
        rec.status = answer.status
        if answer.drop:
            rec.finished = time.monotonic()
            self.close_connection = True
            return
        reason = self.responses.get(answer.status, ("",))[0]
        head = [
            f"{self.protocol_version} {answer.status} {reason}",
            f"server: {self.version_string()}",
            f"date: {self.date_time_string()}",
            f"content-type: {answer.content_type}",
        ]
        head += [f"{key}: {value}" for key, value in answer.headers.items()]
        if answer.events is None:
            head.append(f"content-length: {len(answer.body)}")
            payload = b"" if head_only else answer.body
        else:
            head += ["cache-control: no-cache", "transfer-encoding: chunked"]
            payload = b"".join(b"%x\r\n%s\r\n" % (len(f), f) for f in answer.events)
            payload += b"0\r\n\r\n"
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload
        rec.finished = time.monotonic()
        try:
            self.wfile.write(data)  # one write: the whole answer in one syscall
        except CLIENT_GONE:
            self.close_connection = True  # the client timed out or hung up; nothing to answer
