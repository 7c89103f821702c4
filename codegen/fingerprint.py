"""`module_fingerprint`: text that identifies an xDSL module exactly, for the cache key.

xDSL's generic printer would do (it prints everything), but it costs ~2.5 ms for a 20-op
module, half a cache hit, and ~0.5 s for 1,000 traced ops. This walk writes the same facts
more cheaply: per op its name, operand numbers, result types, properties, attributes,
successors and regions (block arguments with their types, then the ops), in program order.

`str(attr)` is the costly part, and traced modules repeat a few types and constants many
times, so each attribute's text is memoised per call, keyed by the attribute *and* its exact
float bits: FloatAttr(0.0) == FloatAttr(-0.0), and floats print rounded, so the bits (which
are also part of the text) keep two different modules from sharing a fingerprint. Dense
constants are written as their type plus their raw bytes, never printed as numbers.

Every field is length-prefixed or tagged, so two different modules cannot give one text.
"""

from __future__ import annotations

import hashlib
import struct

from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, DictionaryAttr, FloatAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.values: dict[int, int] = {}  # id(SSAValue or Block) -> its number
        self.texts: dict[tuple[Attribute, bytes], str] = {}

    def value(self, value: SSAValue | Block) -> str:
        number = self.values.get(id(value))
        if number is None:  # used before defined (graph regions): numbered on first sight
            number = self.values[id(value)] = len(self.values)
        return str(number)

    def define(self, value: SSAValue | Block) -> None:
        self.values.setdefault(id(value), len(self.values))

    def attr(self, attr: Attribute) -> str:
        bits = b"" if isinstance(attr, TypeAttribute) else _exact_bits(attr)
        key: tuple[Attribute, bytes] | None = (attr, bits)
        try:
            text = self.texts.get((attr, bits))
        except TypeError:  # an unhashable attribute: not memoised
            key, text = None, None
        if text is None:
            if isinstance(attr, DenseIntOrFPElementsAttr):
                text = f"dense {self.attr(attr.type)} {bits.hex()}"
            else:
                printed = str(attr)
                text = f"{len(printed)}:{printed} {bits.hex()}"
            if key is not None:
                self.texts[key] = text
        return text

    def named(self, tag: str, attrs: dict[str, Attribute]) -> None:
        for name in sorted(attrs):
            self.parts.append(f"{tag}{len(name)}:{name}={self.attr(attrs[name])}")

    def op(self, op: Operation) -> None:
        parts = self.parts
        parts.append(f"op {op.name} ({','.join(self.value(v) for v in op.operands)})")
        for result in op.results:
            self.define(result)
            parts.append(f"r{self.attr(result.type)}")
        self.named("p", op.properties)
        self.named("a", op.attributes)
        if op.successors:
            parts.append(f"s{','.join(str(self.block_number(b)) for b in op.successors)}")
        for region in op.regions:
            self.region(region)
        parts.append("end")

    def region(self, region: Region) -> None:
        self.parts.append(f"region {len(region.blocks)}")
        for block in region.blocks:
            self.block(block)
        self.parts.append("/region")

    def block(self, block: Block) -> None:
        self.parts.append(f"block {self.block_number(block)} {len(block.args)}")
        for arg in block.args:
            self.define(arg)
            self.parts.append(f"b{self.attr(arg.type)}")
        for op in block.ops:
            self.op(op)
        self.parts.append("/block")

    def block_number(self, block: Block) -> str:
        return self.value(block)  # blocks share the numbering; ids never collide with values


def _text(attr: Attribute) -> str:
    text = str(attr)
    return f"{len(text)}:{text}"


def module_fingerprint(module: Operation) -> str:
    """Text that identifies `module` exactly (see the module docstring)."""
    writer = _Writer()
    writer.op(module)
    return "\n".join(writer.parts)


def digest_of(*parts: str) -> str:
    """The SHA-256 hex digest of `parts`, each length-prefixed: no two lists of texts share
    one (the key of a compiled module, from its fingerprint and the pipeline's text)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _exact_bits(attr: Attribute) -> bytes:
    """The bits of the floats and dense data inside `attr` (b"" if none); data longer than
    64 bytes is represented by its SHA-256."""
    if isinstance(attr, DenseIntOrFPElementsAttr):
        data = attr.data.data
        return data if len(data) <= 64 else hashlib.sha256(data).digest()
    if isinstance(attr, FloatAttr):
        return struct.pack("<d", attr.value.data)
    if isinstance(attr, ArrayAttr):
        return b"".join(_exact_bits(item) for item in attr.data)
    if isinstance(attr, DictionaryAttr):
        return b"".join(_exact_bits(item) for item in attr.data.values())
    return b""
