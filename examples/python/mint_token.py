#!/usr/bin/env python3
"""Mints a zone_server login token, as a studio's login service would (docs/accounts.md).

    mint_token.py --account 42 --name Aria --ttl 300 --secret-file secret.txt

The format, in full: "zs1." + b64url(payload) + "." + b64url(HMAC-SHA256(secret, "zs1." +
b64url(payload))), payload = account "\\n" expiry "\\n" nonce "\\n" name, base64url without
padding. Only the Python standard library: any language with HMAC-SHA256 can do the same.
"""
import argparse
import base64
import hashlib
import hmac
import os
import secrets
import sys
import time


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def mint(secret: bytes, account: int, name: str, ttl: int) -> str:
    expiry = int(time.time()) + ttl
    nonce = b64url(secrets.token_bytes(12))  # makes every token unique: a token logs in once
    payload = f"{account}\n{expiry}\n{nonce}\n{name}".encode("utf-8")
    signed = "zs1." + b64url(payload)
    mac = hmac.new(secret, signed.encode("ascii"), hashlib.sha256).digest()
    return signed + "." + b64url(mac)


def read_secret_file(path: str) -> bytes:
    """The secret in `path`, one trailing newline dropped (as zone_server reads it)."""
    with open(path, "rb") as f:
        secret = f.read()
    return secret[:-1] if secret.endswith(b"\n") else secret


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--account", type=int, required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--ttl", type=int, default=300)
    p.add_argument("--secret-file", help="file holding the secret (one trailing newline dropped)")
    p.add_argument("--secret-env", help="environment variable holding the secret")
    a = p.parse_args()
    if a.secret_file:
        secret = read_secret_file(a.secret_file)
    elif a.secret_env:
        secret = os.environ.get(a.secret_env, "").encode("utf-8")
    else:
        p.error("give --secret-file or --secret-env")
    print(mint(secret, a.account, a.name, a.ttl))
    return 0


if __name__ == "__main__":
    sys.exit(main())
