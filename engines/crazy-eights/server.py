#!/usr/bin/env python3
"""Crazy Eights behind HTTP: the Tamerlane engine contract (docs/ENGINES.md).

    python3 server.py --port 8082 [--host 127.0.0.1] [--base /api/v1/eights]

Serves GET {base}/config, GET {base}/init?players=A,B,C,D and POST {base}/next.
The rules live in crazy_eights.py; the HTTP side is engines/common/http_engine.py.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "common"))
import crazy_eights as rules  # noqa: E402
import http_engine  # noqa: E402

if __name__ == "__main__":
    http_engine.serve(rules, __doc__.splitlines()[0], "/api/v1/eights")
