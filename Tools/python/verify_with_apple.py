#!/usr/bin/env python3
"""Verifies compact JWS lines with Apple's own App Store Server Library, for cross-checking
Subledger's verifier (Tests/SubledgerJWSTests/AppleLibraryCrossCheckTests.swift).

Usage: verify_with_apple.py --root ROOT [--root ROOT ...] [--environment Sandbox]
                            [--now MILLIS] [FILE ...]

Reads one JWS per non-empty line from each FILE (or stdin) and prints one line per JWS, in
order: `ok`, or the name of Apple's VerificationStatus (e.g. VERIFICATION_FAILURE,
INVALID_CHAIN_LENGTH).

What is checked is Apple's SignedDataVerifier._decode_signed_object with online checks off:
alg ES256, x5c chain (exactly 3, x5c[0..1] against the given roots, X509_STRICT, marker OIDs),
certificate validity at the payload's signedDate (receiptCreationDate, else the current time),
and the ES256 signature. The bundle id, app id and environment checks of the public
verify_and_decode_* methods are left out: they belong to another layer of Subledger.

--now replaces the current time Apple's library falls back to when a payload has no signedDate.
ROOT files may be DER or PEM.
"""

import argparse
import sys
import types

from appstoreserverlibrary import signed_data_verifier
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding


def load_root(path):
    data = open(path, "rb").read()
    if b"-----BEGIN CERTIFICATE-----" in data:
        return x509.load_pem_x509_certificate(data).public_bytes(Encoding.DER)
    return data


def read_lines(paths):
    sources = [open(p, "r") for p in paths] if paths else [sys.stdin]
    for source in sources:
        for line in source:
            line = line.strip()
            if line:
                yield line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", action="append", required=True, help="trusted root certificate (DER or PEM)")
    parser.add_argument("--environment", default="Sandbox", help="Sandbox or Production (Xcode and LocalTesting skip verification)")
    parser.add_argument("--now", type=int, help="epoch milliseconds used as the current time")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()

    if args.now is not None:
        now_seconds = args.now / 1000
        # Only the library module's view of the clock changes.
        signed_data_verifier.time = types.SimpleNamespace(time=lambda: now_seconds)

    environment = Environment(args.environment)
    roots = [load_root(path) for path in args.root]
    # app_apple_id is only compared by the public methods, never by _decode_signed_object.
    verifier = SignedDataVerifier(roots, False, environment, "unused.bundle.id", app_apple_id=0)

    for jws in read_lines(args.files):
        try:
            verifier._decode_signed_object(jws)
            print("ok")
        except VerificationException as error:
            print(error.status.name)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
