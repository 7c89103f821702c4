"""`manifest.json`: the table of contents of a saved directory, versioned.

    {"format": "tracejit.saved_model", "format_version": 1, "tracejit_version": "0.1.0",
     "root": <node>, "functions": [<record>...], "variables": [<variable>...],
     "signatures": {"name": [function index, ...]}, "checksum": <SHA-256 of the rest>}

A node describes the saved object: {"kind": "function", "functions": [indices]} (the
concrete functions of one tj.Function), {"kind": "variable", "index": i},
{"kind": "object", "attributes": {name: node}}, {"kind": "list" | "tuple", "items": [node]}
or {"kind": "dict", "items": {key: node}}. A function record is `concrete_record.to_record`'s
plus the file of its IR (and that text's SHA-256, so a truncated or edited file is caught)
and, when saved, its object code's file and key (`object_code.py`). A variable entry names
its `.npy` file with the file's SHA-256, its shape, dtype, name and trainable flag.

Readers refuse a format version newer than theirs: its meaning may have changed.
"""

from __future__ import annotations

import json
from pathlib import Path

from tracejit.frontend.export.saved_model.errors import LoadError

FORMAT = "tracejit.saved_model"
FORMAT_VERSION = 1
FILENAME = "manifest.json"


def tracejit_version() -> str:
    from tracejit.compiler.driver import tracejit_version as version

    return version()


def checksum(manifest: dict) -> str:
    """SHA-256 of the manifest's content (all but this field): catches a file damaged or
    edited after saving that is still valid JSON. (Against accidents, not attackers: whoever
    can write the directory can also recompute it -- and replace the machine code.)"""
    import hashlib

    content = {k: v for k, v in manifest.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def new_manifest(root: dict, functions: list, variables: list, signatures: dict) -> dict:
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tracejit_version": tracejit_version(),
        "root": root,
        "functions": functions,
        "variables": variables,
        "signatures": signatures,
    }
    manifest["checksum"] = checksum(manifest)
    return manifest


def read_manifest(export_dir: Path) -> dict[str, object]:
    """The manifest of `export_dir`, checked for what every reader relies on."""
    path = export_dir / FILENAME
    if not export_dir.is_dir():
        raise LoadError(f"{export_dir} is not a directory saved by tj.saved_model.save")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LoadError(
            f"{export_dir} has no readable {FILENAME} ({error}): it is not a directory "
            "saved by tj.saved_model.save, or it is incomplete"
        ) from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as error:
        raise LoadError(f"{path} is corrupt or truncated ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise LoadError(f"{path} is not a tj.saved_model manifest")
    version = manifest.get("format_version")
    if type(version) is not int:
        raise LoadError(f"{path} has no format version")
    if version > FORMAT_VERSION:
        raise LoadError(
            f"{export_dir} was saved in format version {version} (by tracejit "
            f"{manifest.get('tracejit_version', '?')}), but this tracejit "
            f"({tracejit_version()}) reads versions up to {FORMAT_VERSION}: upgrade tracejit"
        )
    if manifest.get("checksum") != checksum(manifest):
        raise LoadError(
            f"{path} does not match its checksum: it was damaged or changed after saving"
        )
    for field, kind in (("root", dict), ("functions", list), ("variables", list)):
        if not isinstance(manifest.get(field), kind):
            raise LoadError(f"{path} has no valid '{field}' entry")
    if not isinstance(manifest.get("signatures", {}), dict):
        raise LoadError(f"{path} has no valid 'signatures' entry")
    return manifest


def write_json(path: Path, data: dict) -> None:
    """Write the manifest atomically: a reader sees the old one, the new one, or none --
    never a torn file, even when saving over an earlier save."""
    import os

    temp = path.with_name(path.name + ".tmp")
    write_private(temp, json.dumps(data, indent=1, sort_keys=True).encode())
    os.replace(temp, path)


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to a new file readable and writable by its owner only (0600)."""
    import os

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, 0o600)  # also when the file existed with wider permissions
