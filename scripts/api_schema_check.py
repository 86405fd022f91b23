#!/usr/bin/env python3
"""Runs schemathesis against a live `tessera serve` (embedded store, the demo tenants).

The server gets an owner token for the site under test (so the owner routes are exercised,
not only refused) and generous rate limits (so the budget is not spent on 429s, which the
document allows anyway). Visitor calls carry a real crumb taken from a page view, so the
crumb-checked routes reach their bodies. Every documented operation gets the same budget
of generated examples; the run fails on any 5xx or any answer that contradicts the schema.
"""

import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SITE = "harbor-lane"
HOST = "harbor-lane.localhost"
# The checks that say "the server broke" or "the answer contradicts the document".
# (positive_data_acceptance and negative_data_rejection are about business rules the
# document cannot express, such as an unknown product id being refused.)
CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    ]
)


def start(tessera, fixtures, data_dir, token):
    argv = [
        tessera, "serve", "--listen", "127.0.0.1:0", "--data-dir", data_dir,
        "--fixtures", fixtures, "--owner-token", f"{SITE}={token}",
        "--cart-writes-per-minute", "100000", "--checkouts-per-minute", "100000",
        "--gift-card-lookups-per-minute", "100000", "--form-submissions-per-minute", "100000",
        "--sign-ins-per-minute", "100000", "--captcha-difficulty", "1",
    ]
    env = dict(os.environ, RUST_LOG="warn")
    env.pop("DATABASE_URL", None)
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=sys.stderr, text=True, env=env)
    for line in child.stdout:
        m = re.match(rf"^{SITE}: http://[^:/]+:(\d+)/$", line.strip())
        if m:
            # Keep reading its stdout, so the server never blocks on a full pipe.
            threading.Thread(target=child.stdout.read, daemon=True).start()
            return child, int(m.group(1))
    raise SystemExit(f"tessera serve exited ({child.wait()}) before listening")


def crumb_of(port):
    """A page view sets the `crumb` cookie; visitor changes send it back as X-CSRF-Token."""
    for _ in range(100):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/", headers={"Host": HOST})
            r = c.getresponse()
            r.read()
            for name, value in r.getheaders():
                if name.lower() == "set-cookie" and value.startswith("crumb="):
                    return value.split(";")[0].split("=", 1)[1]
            raise SystemExit("the home page set no crumb cookie")
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise SystemExit("the server did not answer")


def get_json(port, path, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": HOST}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        raise SystemExit(f"GET {path}: {r.status} {body[:200]!r}")
    return json.loads(body)


def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in sorted(set(values))) + "]"


def config_with_real_ids(port, token, path):
    """A schemathesis config that, half of the time, puts the site's real ids into the
    parameters and bodies that name things (collections, items, products, variants, forms,
    the website), so generated calls reach past "not found" into the routes' own checks."""
    website = get_json(port, "/api/commerce/shopping-cart")["websiteId"]
    collections, items, products, skus = [], [], [], []
    for c in get_json(port, "/api/owner/collections", token)["collections"]:
        collections.append(c["id"])
        for item in get_json(port, f"/api/owner/collections/{c['id']}/items", token)["items"]:
            items.append(item["id"])
            variants = (item.get("structuredContent") or {}).get("variants") or []
            if variants:
                products.append(item["id"])
                skus.extend(v["sku"] for v in variants if v.get("sku"))
    forms = [f["id"] for f in get_json(port, "/api/owner/forms", token)["forms"]]
    dictionaries = {
        "website": [website],
        "collections": collections,
        "things": collections + items,
        "products": products or items,
        "skus": skus or ["none"],
        "forms": forms or ["none"],
    }
    bindings = {
        "path.website_id": "website",
        "path.collection_id": "collections",
        "path.id": "things",
        "path.form_id": "forms",
        "query.productId": "products",
        "query.itemId": "products",
        "query.variantId": "skus",
        "body.itemId": "products",
        "body.productId": "products",
        "body.variantId": "skus",
        "body.sku": "skus",
        "body.formId": "forms",
        "body.collectionId": "collections",
    }
    lines = []
    for name, values in dictionaries.items():
        lines += [f"[dictionaries.{name}]", f"values = {toml_list(values)}", ""]
    lines.append("[parameters]")
    for key, name in bindings.items():
        lines.append(f'"{key}" = {{ dictionary = "{name}", probability = 0.5 }}')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return sum(len(v) for v in dictionaries.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--st", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--examples", type=int, default=int(os.environ.get("API_EXAMPLES", "25")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("API_SEED", "20261126")))
    args, rest = ap.parse_known_args()

    data_dir = tempfile.mkdtemp(prefix="tessera-schema-")
    token = "tsk_" + secrets.token_hex(32)
    child, port = start(args.tessera, args.fixtures, data_dir, token)
    try:
        crumb = crumb_of(port)
        base = f"http://127.0.0.1:{port}"
        config = os.path.join(data_dir, "schemathesis.toml")
        known = config_with_real_ids(port, token, config)
        print(f"api-schema-check: {known} real ids of {SITE} offered to the generator", flush=True)
        cmd = [
            args.st, "--config-file", config, "run", f"{base}/api/openapi.json", "--url", base,
            "-H", f"Host: {HOST}",
            "-H", f"Cookie: crumb={crumb}",
            "-H", f"X-CSRF-Token: {crumb}",
            "-H", f"Authorization: Bearer {token}",
            "--checks", CHECKS,
            "--max-examples", str(args.examples),
            "--seed", str(args.seed),
            "--workers", "1",
            "--request-timeout", "30",
            "--no-color",
            *rest,
        ]
        shown = [a if token not in a else "Authorization: Bearer …" for a in cmd[1:]]
        print("api-schema-check: st", " ".join(shown), flush=True)
        code = subprocess.call(cmd)
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
