"""The HTTP side of a Tamerlane-contract engine (docs/ENGINES.md), shared by the engines here.

An engine's rules module provides config(), init(players) and next_step(state, players,
action), and raises its EngineError (with .code and .message) for an answer that does not
fit; serve() puts them behind GET {base}/config, GET {base}/init?players=A,B,C,D and
POST {base}/next. Python 3 standard library only.
"""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MAX_BODY = 1 << 20  # a whole game's state is a few kilobytes


def make_handler(rules, base):
    class Handler(BaseHTTPRequestHandler):
        server_version = "parlor-engine/1"
        protocol_version = "HTTP/1.1"  # keep-alive: the server may reuse a connection
        timeout = 30  # seconds a connection may sit idle or a body may take to arrive

        def log_message(self, format, *args):  # keep stdout to the one "listening" line
            pass

        def send_json(self, status, body):
            data = json.dumps(body, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def error(self, status, code, message):
            self.send_json(status, {"error": code, "message": message})

        def route(self):
            url = urlsplit(self.path)
            if not url.path.startswith(base + "/"):
                return None, url
            return url.path[len(base):], url

        def do_GET(self):
            name, url = self.route()
            if name == "/config":
                return self.send_json(200, rules.config())
            if name == "/init":
                query = parse_qs(url.query, keep_blank_values=True)
                if "players" not in query:
                    return self.error(400, "bad_request",
                                      "init needs ?players=ID,ID,... (comma-separated player ids)")
                return self.answer(lambda: rules.init(query["players"][-1].split(",")))
            if name == "/next":
                return self.error(405, "method_not_allowed", "next is called with POST")
            self.error(404, "not_found", f"no such call {url.path!r}; the calls are "
                       f"{base}/config, {base}/init and {base}/next")

        def do_POST(self):
            # The body is read first, whatever the path, so that the connection stays usable.
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                self.close_connection = True
                return self.error(400, "bad_request", "a POST needs a Content-Length header")
            if int(length) > MAX_BODY:
                self.close_connection = True
                return self.error(400, "bad_request", f"body larger than {MAX_BODY} bytes")
            try:
                raw = self.rfile.read(int(length))
            except OSError:
                self.close_connection = True
                return
            if len(raw) != int(length):
                self.close_connection = True
                return self.error(400, "bad_request", "the body ended before Content-Length")
            name, url = self.route()
            if name in ("/config", "/init"):
                return self.error(405, "method_not_allowed", f"{name[1:]} is called with GET")
            if name != "/next":
                return self.error(404, "not_found", f"no such call {url.path!r}")
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as e:
                return self.error(400, "bad_request", f"the body is not JSON: {e}")
            if not isinstance(body, dict) or not {"state", "players", "action"} <= body.keys():
                return self.error(400, "bad_request",
                                  'next takes a JSON object {"state", "players", "action"}')
            self.answer(lambda: list(rules.next_step(body["state"], body["players"],
                                                     body["action"])))

        def answer(self, compute):
            try:
                result = compute()
            except rules.EngineError as e:
                return self.error(400, e.code, e.message)
            except Exception as e:  # a state the engine never produced; keep serving
                return self.error(400, "bad_state", f"the state cannot be used: {e!r}")
            self.send_json(200, result)

    return Handler


class EngineHTTPServer(ThreadingHTTPServer):
    # A server keeps many connections to its engine, one per game in flight; the default
    # listen backlog of 5 makes the kernel drop connection attempts beyond it, and each drop
    # costs the caller a retransmission of a second or more.
    request_queue_size = 128
    daemon_threads = True


def serve(rules, description, base_example, argv=None):
    """Parses --port, --host and --base, prints `listening on HOST:PORT`, serves until killed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--base", default="", help=f"path prefix, e.g. {base_example}")
    args = parser.parse_args(argv)
    base = "/" + args.base.strip("/") if args.base.strip("/") else ""
    httpd = EngineHTTPServer((args.host, args.port), make_handler(rules, base))
    host, port = httpd.server_address[:2]
    print(f"listening on {host}:{port}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
