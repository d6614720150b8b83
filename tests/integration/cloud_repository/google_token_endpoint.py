"""A stand-in for Google's OAuth2 token endpoint (oauth2.googleapis.com/token)
that checks what a service account sends as Google does: an RS256 JWT bearer
assertion (RFC 7523) signed by the key it registered, for itself as audience,
not expired. It grants "tok-<n>" tokens for an hour, and answers a bad
assertion with Google's {"error": "invalid_grant", "error_description"} and
HTTP 400. fake-gcs-server takes any token; this is where the signing is checked.
GceMetadataServer stands in for Compute Engine's metadata server: a GET of the
default service account's token path with "Metadata-Flavor: Google" (403
without, as Google's) grants "gce-<n>" tokens.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class GoogleTokenEndpoint:
    def __init__(self, registered: rsa.RSAPrivateKey):
        self.public_key = registered.public_key()
        self._lock = threading.Lock()
        self.claims: list[dict] = []  # of each accepted assertion
        self.refused = 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                status, answer = endpoint._grant(form)
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self._server.server_address[1]}/token"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _grant(self, form: dict) -> tuple[int, dict]:
        grant = form.get("grant_type", [""])[0]
        if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return 400, {"error": "unsupported_grant_type", "error_description": grant}
        try:
            header_b64, claims_b64, signature_b64 = form["assertion"][0].split(".")
            header = json.loads(_unb64(header_b64))
            claims = json.loads(_unb64(claims_b64))
            assert header["alg"] == "RS256", header
            self.public_key.verify(_unb64(signature_b64), f"{header_b64}.{claims_b64}".encode(),
                                   padding.PKCS1v15(), hashes.SHA256())
        except (InvalidSignature, KeyError, ValueError, AssertionError):
            with self._lock:
                self.refused += 1
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        now = time.time()
        if claims.get("aud") != self.uri or not claims["iat"] - 60 <= now <= claims["exp"]:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT claims."}
        with self._lock:
            self.claims.append(claims)
            token = f"tok-{len(self.claims)}"
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def service_account_file(self, path: Path, key: rsa.RSAPrivateKey) -> Path:
        """Writes a service-account JSON for `key` whose token_uri is this endpoint."""
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
        path.write_text(json.dumps({
            "type": "service_account", "project_id": "inferd-test",
            "private_key_id": "k1", "private_key": pem,
            "client_email": "loader@inferd-test.iam.gserviceaccount.com",
            "client_id": "1", "token_uri": self.uri}))
        return path

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class GceMetadataServer:
    TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token"

    def __init__(self):
        self.granted = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path != server.TOKEN_PATH or self.headers.get("Metadata-Flavor") != "Google":
                    status, answer = 403, {"error": "Missing Metadata-Flavor:Google header."}
                else:
                    server.granted += 1  # one handler thread at a time asks, in these tests
                    status, answer = 200, {"access_token": f"gce-{server.granted}",
                                           "expires_in": 3599, "token_type": "Bearer"}
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self._server.server_address[1]}"  # as GCE_METADATA_HOST
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
