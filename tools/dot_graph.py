"""`--emit dot`: the dataflow of a module as a Graphviz graph.

Every op is a box labelled with its name and result types, every SSA use an edge from the
value's producer to its user, and block arguments (a function's inputs) are ellipses. An
op with regions (a `func.func`, later a fused `tj.fused` kernel) is drawn as a
`subgraph cluster_N` holding its blocks' arguments and ops; when it has operands or results
itself, an anchor box for it inside the cluster takes the edges.

    tracejit-opt model.py:f --signature "f32[8,4], f32[4]" --emit dot | dot -Tpng -o f.png
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block, Operation, OpResult, SSAValue

_STYLE = (
    "  rankdir=TB;\n"
    '  node [shape=box, fontname="monospace", fontsize=10];\n'
    '  edge [fontname="monospace", fontsize=8];\n'
)


def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def cluster_label(op: Operation) -> str:
    if isinstance(op, func.FuncOp):
        return f"func.func @{op.sym_name.data}"
    return op.name


class DotGraph:
    """Builds the `digraph` text of one module; `node_of` maps values to their node ids."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.edges: list[str] = []
        self.node_of: dict[SSAValue | Operation, str] = {}
        self.clusters = 0
        self.nodes = 0

    def render(self, module: Operation) -> str:
        for op in module.regions[0].ops if module.regions else ():
            self.add_op(op, "  ")
        body = "".join(self.lines) + "".join(self.edges)
        return "digraph tj {\n" + _STYLE + body + "}\n"

    def new_node(self, kind: str) -> str:
        self.nodes += 1
        return f"{kind}{self.nodes - 1}"

    def add_op(self, op: Operation, indent: str) -> None:
        if op.regions:
            self.add_cluster(op, indent)
        else:
            self.add_node(op, op.name, indent)

    def add_node(self, op: Operation, name: str, indent: str) -> None:
        node = self.new_node("n")
        self.node_of[op] = node
        types = ", ".join(str(result.type) for result in op.results)
        label = name + (f"\n{types}" if types else "")
        self.lines.append(f"{indent}{node} [label={quote(label)}];\n")
        for result in op.results:
            self.node_of[result] = node
        for operand in op.operands:
            self.add_edge(operand, node)

    def add_cluster(self, op: Operation, indent: str) -> None:
        number = self.clusters
        self.clusters += 1
        self.lines.append(f"{indent}subgraph cluster_{number} {{\n")
        self.lines.append(f"{indent}  label={quote(cluster_label(op))};\n")
        if op.operands or op.results:
            self.add_node(op, op.name, indent + "  ")
        for region in op.regions:
            for block in region.blocks:
                self.add_block(block, indent + "  ")
        self.lines.append(f"{indent}}}\n")

    def add_block(self, block: Block, indent: str) -> None:
        for argument in block.args:
            node = self.new_node("a")
            self.node_of[argument] = node
            label = f"%{argument.name_hint or f'arg{argument.index}'}\n{argument.type}"
            self.lines.append(f"{indent}{node} [label={quote(label)}, shape=ellipse];\n")
        for op in block.ops:
            self.add_op(op, indent)

    def add_edge(self, value: SSAValue, target: str) -> None:
        source = self.node_of.get(value)
        if source is None:  # defined later (a graph region) or outside what we drew
            return
        label = ""
        if isinstance(value, OpResult) and len(value.op.results) > 1:
            label = f" [label={quote(str(value.index))}]"
        self.edges.append(f"  {source} -> {target}{label};\n")


def module_to_dot(module: Operation) -> str:
    return DotGraph().render(module)
