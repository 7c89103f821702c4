"""fuse-elementwise: chains of element-wise `tj` ops become `tj.fused` kernels.

Expects tensor-level functions (after `inline`, `canonicalize`, `cse`). Produces the same
computation where element-wise work is grouped into `tj.fused` kernels (`ir/fused.py`),
each of which `bufferize` turns into one loop nest with no intermediate buffers:

    %d = tj.sub %x, %y : tensor<8xf32>                 %m = tj.fused %x, %y : ... {
    %p = tj.mul %d, %d : tensor<8xf32>         ->      ^bb0(%a, %b):  sub, mul, reduce
    %s = tj.reduce "sum" %p, axes = [0] : ...            tj.yield %s
                                                       }

What fuses: element-wise ops (unary, binary, `cast`, `compare`, `select`), views of a value
from outside the kernel, or of another view of it — broadcasts, transposes, reshapes that
add or drop size-1 dims, slices (the kernel reads the viewed array where the view says,
through an indexing map or a load at start + i * step, never a copy: a stencil
`a[1:-1] + a[:-2] + a[2:]` is one loop reading `a` in place) —
splat constants (copied into every kernel that uses them, as scalars), and `tj.reduce`
sum/prod/max/min/any/all as the kernel's output (argmax/argmin are never fused). A kernel
runs over one iteration domain (the shape of its ops' results, before any reduction),
whose dims may be known only at run time: a slice's run-time start or count (`x[:i]`,
`A[i, :j]` in a staged loop) enters the kernel as an `index` input, so
`np.dot(A[i, :j], A[j, :j])` is one loop reading `A` in place. A view read only by products
BLAS will compute (use-blas's rule) starts no kernel: BLAS reads a slice, or its
transpose (`w[:, :k].T @ y`), where it lies, and a kernel would copy it.

How, in two steps per block (regions of `tj.if`/`tj.while` are processed on their own):

1. Producer into consumer. Ops are visited from last to first; an op not yet placed starts
   a kernel and pulls in its producers, latest first. A producer whose users are all in the
   kernel moves in. A producer with users elsewhere is *recomputed* in the kernel when it is
   cheap, and otherwise stays outside and is *materialised* (it starts its own kernel and
   this one reads its result). A view's input is never pulled in (it stays an input read
   through the view) unless it is a view itself (a chain of views, read through to the
   array at its end), nor is a reduction (its result is a kernel output). A view of a
   value computed in the kernel would need that value in memory: the value is materialised.
2. Multi-output merging. Kernels over the same domain merge when one feeds the others (a
   producer kernel with all its consumer kernels, or with one of them) or when two share an
   input, so each value is computed once and each input is read once — provided the result
   is one loop nest (a kernel with reductions yields only reductions over the same axes)
   and no dependency cycle appears (no path from one to the other through an op outside).
   A `?` dim of the domain is one type for every kernel; they merge only if each part
   reads its run-time size from one place (`same_sizes`).

The cost rule (what "cheap" means): one scalar instruction or a compare/select costs 1
(`add sub mul neg abs maximum minimum fmax fmin copysign sign floor ceil trunc rint`,
bitwise ops, `cast`, `compare`, `select`, `real`, `imag`, `conj`), `div`, `sqrt` and shifts
cost 2, views 0, constants 0; transcendentals, `pow`, `floor_divide`, `remainder`,
`fmod`, `hypot`, `arctan2`, `cbrt` are expensive. A multi-user op is recomputed when its
cost is at most 2 and the kernel's recomputed ops cost at most `recompute-budget` (8) in
total; otherwise it is materialised. Recomputing a few instructions per element costs
less than storing the value and loading it again in every consumer.

Ordering: ops with side effects (`print`, Variable reads and writes, `assert`), ops with
regions (`tj.if`, `tj.while`) and terminators are barriers: a kernel only holds ops from
between two barriers, and nothing moves across a barrier, so effects keep their program
order -- except views, which a kernel pulls in from before barriers too: a view computes
nothing and reads values defined before it, so reading through it later is the same (the
slice of `np.max(x[i:])`, whose count the frontend first asserts is not zero, is read in
place after the assert instead of copied before it). Between barriers all ops are pure,
and they are re-emitted in a dependency order that keeps the original order wherever the
kernels allow.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free

from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.control_flow import YieldOp
from tracejit.ir.fused import (
    ELEMENTWISE_OPS,
    FUSABLE_REDUCTIONS,
    VIEW_OPS,
    FusedOp,
    Size,
    domain_of,
    domain_sizes,
    domain_values,
    is_view,
)
from tracejit.ir.invariants import defining_op
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp, ReshapeOp, SliceOp, TransposeOp
from tracejit.ir.tensor_array import SetRowOp
from tracejit.ir.update import InsertSliceOp, ScatterOp
from tracejit.passes.use_blas import blas_family

# --- the cost rule ---------------------------------------------------------------------
CHEAP_COST = 1
RECOMPUTE_MAX_COST = 2  # ops costing more are materialised when several kernels use them
EXPENSIVE = 1000
OP_COSTS: dict[type[Operation], int] = {
    BroadcastInDimOp: 0,
    TransposeOp: 0,
    ReshapeOp: 0,
    SliceOp: 0,
    ew.DivOp: 2,
    ew.SqrtOp: 2,
    ew.LeftShiftOp: 2,
    ew.RightShiftOp: 2,
    **{
        op_type: CHEAP_COST
        for op_type in (
            ew.AddOp,
            ew.SubOp,
            ew.MulOp,
            ew.NegOp,
            ew.AbsOp,
            ew.SignOp,
            ew.MaximumOp,
            ew.MinimumOp,
            ew.FmaxOp,
            ew.FminOp,
            ew.CopysignOp,
            ew.FloorOp,
            ew.CeilOp,
            ew.TruncOp,
            ew.RintOp,
            ew.BitwiseAndOp,
            ew.BitwiseOrOp,
            ew.BitwiseXorOp,
            ew.BitwiseNotOp,
            ew.CastOp,
            ew.CompareOp,
            ew.SelectOp,
            ew.RealOp,
            ew.ImagOp,
            ew.ConjOp,
        )
    },
    # a libm call or a long expansion per element: never recomputed in a second kernel
    **dict.fromkeys(
        (
            ew.ExpOp,
            ew.Expm1Op,
            ew.Exp2Op,
            ew.LogOp,
            ew.Log1pOp,
            ew.Log2Op,
            ew.Log10Op,
            ew.CbrtOp,
            ew.ErfOp,
            ew.SinOp,
            ew.CosOp,
            ew.TanOp,
            ew.ArcsinOp,
            ew.ArccosOp,
            ew.ArctanOp,
            ew.SinhOp,
            ew.CoshOp,
            ew.TanhOp,
            ew.ArcsinhOp,
            ew.ArccoshOp,
            ew.ArctanhOp,
            ew.FloorDivideOp,
            ew.RemainderOp,
            ew.FmodOp,
            ew.PowOp,
            ew.Arctan2Op,
            ew.HypotOp,
            ew.ReciprocalOp,
        ),
        EXPENSIVE,
    ),
}
"""The cost of each element-wise op and view (the cost rule above); every element-wise op
has an entry (tests/ir/test_op_tables.py). Ops not listed (none of them element-wise)
cost EXPENSIVE."""


def cost(op: Operation) -> int:
    return OP_COSTS.get(type(op), EXPENSIVE)


# --- what fuses --------------------------------------------------------------------------
def is_fusable(op: Operation) -> bool:
    """An op a kernel can hold as a member (constants are copied in separately)."""
    if isinstance(op, ReduceOp):
        return op.kind.data in FUSABLE_REDUCTIONS
    if isinstance(op, VIEW_OPS):
        # a kernel copies a splat constant into its body, where only a broadcast may read it
        inlined = not isinstance(op, BroadcastInDimOp) and is_inlined_constant(op.operands[0])
        return is_view(op) and not inlined
    return isinstance(op, ELEMENTWISE_OPS)


def read_by_matmuls_only(op: Operation) -> bool:
    """A view whose every user is a product BLAS will compute (use-blas's rule): a kernel
    would copy it, where BLAS reads a slice or its transpose where it lies (its leading
    dim and `trans` flag: bufferize/blas_windows.py)."""
    users = [use.operation for result in op.results for use in result.uses]
    return (
        isinstance(op, VIEW_OPS)
        and bool(users)
        and all(isinstance(u, MatmulOp) and blas_family(u) is not None for u in users)
    )


def is_chain_link(op: Operation) -> bool:
    """A view another view of a kernel may read through (a chain of views, read from the
    array at the end of it): any fusable view but a broadcast of a splat constant."""
    if not isinstance(op, VIEW_OPS) or not is_fusable(op):
        return False
    return not is_inlined_constant(op.operands[0])


def is_pullable(op: Operation) -> bool:
    """A producer a kernel can compute inside it (a reduction's result is only an output)."""
    return is_fusable(op) and not isinstance(op, ReduceOp)


def is_inlined_constant(value: SSAValue) -> bool:
    return isinstance(value.owner, ConstantOp) and value.owner.splat() is not None


def updated_array(op: Operation) -> SSAValue | None:
    """The array an update op (`a[i] = v` and the like) returns a new version of."""
    if isinstance(op, InsertSliceOp | ScatterOp):
        return op.dest
    if isinstance(op, SetRowOp):
        return op.array
    return None


def read_through_views(op: Operation) -> list[SSAValue]:
    """The values `op` reads: its operands, and what the views among them read."""
    found: list[SSAValue] = []
    pending = list(op.operands)
    while pending:
        value = pending.pop()
        if value not in found:
            found.append(value)
            if isinstance(value.owner, VIEW_OPS):
                pending.extend(value.owner.operands)
    return found


def is_barrier(op: Operation) -> bool:
    """Ops nothing is fused or moved across (see the module docstring)."""
    if isinstance(op, FusedOp):
        return False
    return bool(op.regions) or op.has_trait(IsTerminator) or not is_side_effect_free(op)


# --- kernels under construction ----------------------------------------------------------
@dataclass(eq=False)
class Group:
    """A kernel being formed: `homes` are the ops it computes for everyone, `members` the
    homes plus the cheap ops it recomputes for itself."""

    segment: int
    root: Operation
    homes: set[Operation] = field(default_factory=set)
    members: set[Operation] = field(default_factory=set)
    recomputed_cost: int = 0
    _domain: tuple[int, ...] | None = field(default=None, repr=False)

    def domain(self) -> tuple[int, ...]:
        """The shape the kernel runs over: its root's (the op it grew from, the last in
        program order; a view it pulled in through a chain of views has its own shape).
        Read once: merging compares it for every pair of kernels."""
        if self._domain is None:
            self._domain = domain_of(self.root)
        return self._domain  # type: ignore[return-value]  # roots are not constants

    def domain_sizes(self, members: set[Operation] | None = None) -> list[list[Size]]:
        """Where the run-time sizes of the domain's `?` dims can be read: values from
        outside `members` (default: the group's own; a merge passes all its parts')."""
        inside = self.members if members is None else members
        values = domain_values(self.members)
        if isinstance(self.root, VIEW_OPS):  # a kernel of views only
            values.append(self.root.results[0])
        return domain_sizes(values, len(self.domain()), lambda v: v.owner in inside)

    def reductions(self) -> list[ReduceOp]:
        return [op for op in self.members if isinstance(op, ReduceOp)]


# How many kernels reading an input of a kernel are tried for merging with it.
MAX_SIBLINGS = 8


@dataclass
class BlockFusion:
    """Fusion state of one block: op positions, segments between barriers, kernels."""

    block: Block
    recompute_budget: int
    position: dict[Operation, int] = field(default_factory=dict)
    segment_of: dict[Operation, int] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    home_of: dict[Operation, Group] = field(default_factory=dict)
    groups_of: dict[Operation, set[Group]] = field(default_factory=lambda: defaultdict(set))
    dropped: set[Operation] = field(default_factory=set)
    # The dependency graph of nodes (`successors`), kept until the groups change: merging
    # asks for it once per candidate, and rebuilding it each time made fusion quadratic.
    graph: dict[object, list[object]] | None = None
    # What each kernel reads from outside (`inputs`), kept until its members change: merging
    # compares every kernel's inputs with every other's, and reading them from the ops each
    # time made fusing a chain of 100 unrolled steps take 5 s of a 19 s compile.
    input_cache: dict[Group, tuple[SSAValue, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        segment = 0
        for index, op in enumerate(self.block.ops):
            self.position[op] = index
            if is_barrier(op):
                segment += 1
                continue
            self.segment_of[op] = segment

    def producer(self, value: SSAValue, segment: int) -> Operation | None:
        """The op of `segment` that defines `value`, if any."""
        owner = value.owner
        if isinstance(owner, Operation) and self.segment_of.get(owner) == segment:
            return owner
        return None

    def earlier_view(self, value: SSAValue, segment: int) -> Operation | None:
        """The view of an earlier segment that defines `value`, if any: a kernel may read
        through it from after the barriers between them (see the module docstring)."""
        owner = value.owner
        if not isinstance(owner, VIEW_OPS):
            return None
        found = self.segment_of.get(owner)
        return owner if found is not None and found < segment else None

    # --- step 1: producer into consumer -----------------------------------------------
    def form_groups(self) -> None:
        self.drop_dead_ops()
        for op in reversed(list(self.block.ops)):
            if op not in self.segment_of or not is_fusable(op) or op in self.home_of:
                continue
            if read_by_matmuls_only(op):
                continue  # a matmul reads a view through its strides (BLAS: lda, trans)
            if self.needs_no_home(op):
                self.graph = None
                self.dropped.add(op)
                continue
            group = Group(self.segment_of[op], op)
            self.groups.append(group)
            self.add(group, op, home=True)
            self.grow(group, op)
            if not self.sizes_known(group):
                self.shrink_to_root(group, op)

    def drop_dead_ops(self) -> None:
        """Drop the fusable ops no live op reads, before any kernel grows: a producer whose
        only other user is dead then moves into its consumer's kernel in this run (else
        the dead user, dropped only once reached, kept it out, and a second run of the
        pass fused what the first left: found by test_fusion_keeps_the_meaning)."""
        for op in reversed(list(self.block.ops)):
            if op not in self.segment_of or not is_fusable(op):
                continue
            users = [use.operation for result in op.results for use in result.uses]
            if all(user in self.dropped for user in users):
                self.dropped.add(op)

    def shrink_to_root(self, group: Group, root: Operation) -> None:
        """Give the producers `grow` pulled in back (they start kernels of their own)."""
        self.graph = None
        for op in group.members - {root}:
            self.groups_of[op].discard(group)
            if self.home_of.get(op) is group:
                del self.home_of[op]
        group.members, group.homes, group.recomputed_cost = {root}, {root}, 0

    def needs_no_home(self, op: Operation) -> bool:
        """Every user is dead or recomputes `op` itself (in every kernel that holds it)."""
        for result in op.results:
            for use in result.uses:
                user = use.operation
                if user in self.dropped and not self.groups_of[user]:
                    continue  # a dead user
                holders = self.groups_of.get(user)
                if not holders or any(op not in g.members for g in holders):
                    return False
        return True

    def add(self, group: Group, op: Operation, home: bool) -> None:
        self.graph = None
        self.input_cache.pop(group, None)
        group.members.add(op)
        self.groups_of[op].add(group)
        if home:
            group.homes.add(op)
            self.home_of[op] = group

    def grow(self, group: Group, root: Operation) -> None:
        """Pull producers in, latest first, so that when a producer is decided every
        kernel member after it is known."""
        heap: list[tuple[int, int]] = []
        by_position: dict[int, Operation] = {}

        def push_producers(op: Operation) -> None:
            for value in op.operands:
                producer = self.producer(value, group.segment) or self.earlier_view(
                    value, group.segment
                )
                if producer is None or not is_pullable(producer):
                    continue
                # a view reads a kernel input where it says (its map, or a slice's), or
                # through the views it reads (a chain)
                if not isinstance(op, VIEW_OPS) or is_chain_link(producer):
                    position = self.position[producer]
                    by_position[position] = producer
                    heapq.heappush(heap, (-position, position))

        push_producers(root)
        while heap:
            _, position = heapq.heappop(heap)
            producer = by_position[position]
            if producer in group.members or producer in self.home_of:
                continue
            if self.viewed_in(producer, group):
                continue  # a view in the kernel reads it from memory: materialised
            if self.all_users_are_homes(producer, group):
                self.add(group, producer, home=True)
            elif self.can_recompute(producer, group):
                group.recomputed_cost += cost(producer)
                self.add(group, producer, home=False)
            else:
                continue  # materialised: it gets a kernel of its own later
            push_producers(producer)

    @staticmethod
    def viewed_in(op: Operation, group: Group) -> bool:
        """Whether a view the kernel holds reads `op`'s result (a view reads an array in
        memory, so its operand cannot be a value the kernel computes; only a view, which
        the reading view reads through, can)."""
        if is_chain_link(op):
            return False
        users = [use.operation for result in op.results for use in result.uses]
        return any(isinstance(u, VIEW_OPS) and u in group.members for u in users)

    def all_users_are_homes(self, op: Operation, group: Group) -> bool:
        """Every live user of `op` is computed by `group` (dead users are about to go)."""
        users = [use.operation for result in op.results for use in result.uses]
        return all(u in group.homes or self.is_dead(u) for u in users)

    def is_dead(self, op: Operation) -> bool:
        return op in self.dropped and not self.groups_of[op]

    def can_recompute(self, op: Operation, group: Group) -> bool:
        price = cost(op)
        return (
            price <= RECOMPUTE_MAX_COST
            and group.recomputed_cost + price <= self.recompute_budget
            and not self.reads_updated_array(op, group)
        )

    def reads_updated_array(self, op: Operation, group: Group) -> bool:
        """Does `op` read an array that an update (`a[i] = v`) replaces between `op` and
        the kernel? Recomputed there, it would read the old array after the update, which
        then cannot write in place: Thomas's `m = b[i] - a[i] * cp[i - 1]`, recomputed for
        `dp[i]` after `cp[i] = c[i] / m`, copied all of `cp` on every trip of the loop."""
        start, end = self.position[op], max(self.position[h] for h in group.homes)
        for value in read_through_views(op):
            for use in value.uses:
                if updated_array(use.operation) is not value:
                    continue
                update = self.enclosing_in_block(use.operation)
                if update is not None and start < self.position[update] < end:
                    return True
        return False

    def enclosing_in_block(self, op: Operation | None) -> Operation | None:
        """`op`, or the op of this block holding it, if any."""
        found: Operation | None = op
        while found is not None and found not in self.position:
            found = found.parent_op()
        return found

    # --- what a kernel reads and writes --------------------------------------------------
    def inputs(self, group: Group) -> tuple[SSAValue, ...]:
        """The values a kernel reads from outside (splat constants are copied in)."""
        found = self.input_cache.get(group)
        if found is None:
            seen: dict[SSAValue, None] = {}
            for op in self.ordered(group.members):
                for value in op.operands:
                    if value.owner not in group.members and not is_inlined_constant(value):
                        seen.setdefault(value)
            found = self.input_cache[group] = tuple(seen)
        return found

    def outputs(self, group: Group) -> list[SSAValue]:
        """Results of the kernel's home ops that someone outside the kernel needs."""
        return [
            result
            for op in self.ordered(group.homes)
            for result in op.results
            if any(self.needs_from_outside(op, use.operation, group) for use in result.uses)
        ]

    def needs_from_outside(self, op: Operation, user: Operation, group: Group) -> bool:
        """Whether `user` reads `op`'s result from memory: it is an op outside every kernel,
        or some kernel recomputes `user` without `op` (even if `group` holds `user` too)."""
        if self.is_dead(user):
            return False
        holders = self.groups_of.get(user)
        return not holders or any(op not in g.members for g in holders)

    def ordered(self, ops: Iterable[Operation]) -> list[Operation]:
        return sorted(ops, key=self.position.__getitem__)

    # --- step 2: multi-output merging ------------------------------------------------------
    def merge_groups(self) -> None:
        changed = True
        while changed:
            changed = False
            for group in list(self.groups):
                if group in self.groups and any(
                    self.try_merge(c) for c in self.merge_candidates(group)
                ):
                    changed = True

    def merge_candidates(self, group: Group) -> list[list[Group]]:
        domain = group.domain()
        consumers = [
            g for g in self.consumers(group) if g.segment == group.segment and g.domain() == domain
        ]
        candidates = [[group, *consumers]] if consumers else []
        if len(consumers) > 1:
            candidates += [[group, c] for c in consumers]
        if not domain:  # scalars: reading a shared input once saves nothing
            return candidates
        inputs = set(self.inputs(group))
        siblings = [
            other
            for other in self.groups
            if other is not group
            and other.segment == group.segment
            and other.domain() == domain
            and not inputs.isdisjoint(self.inputs(other))
        ]
        # the nearest ones in program order: each candidate costs a walk of the graph, and
        # every pair of many kernels reading one array would make fusion quadratic
        here = self.key(group)
        siblings.sort(key=lambda other: abs(self.key(other) - here))
        return candidates + [[group, other] for other in siblings[:MAX_SIBLINGS]]

    def consumers(self, group: Group) -> list[Group]:
        found: dict[Group, None] = {}
        for value in self.outputs(group):
            for use in value.uses:
                for holder in self.groups_of.get(use.operation, ()):
                    if holder is not group:
                        found.setdefault(holder)
        return list(found)

    def try_merge(self, parts: Sequence[Group]) -> bool:
        merged = Group(parts[0].segment, parts[0].root)
        for part in parts:
            merged.homes |= part.homes
            merged.members |= part.members
            merged.recomputed_cost += part.recomputed_cost
        if not self.is_one_loop_nest(merged) or not self.same_sizes(parts, merged):
            return False
        if self.would_cycle(parts):
            return False
        self.graph = None
        for part in parts:
            self.groups.remove(part)
            for op in part.members:
                self.groups_of[op].discard(part)
        self.groups.append(merged)
        for op in merged.members:
            self.add(merged, op, home=op in merged.homes)
        return True

    def is_one_loop_nest(self, group: Group) -> bool:
        """Whether `bufferize` can emit the kernel as one linalg.generic (see ir/fused.py)."""
        reductions = group.reductions()
        for op in group.members:
            if isinstance(op, VIEW_OPS) and not self.reads_memory(op, group):
                return False  # a view reads an array in memory, not a value of the loop
            if any(isinstance(v.owner, ReduceOp) and v.owner in group.members for v in op.operands):
                return False
        if not reductions:
            return True
        if len({r.get_axes() for r in reductions}) > 1:
            return False
        outputs = self.outputs(group)
        return all(isinstance(v.owner, ReduceOp) for v in outputs)

    @staticmethod
    def reads_memory(view: Operation, group: Group) -> bool:
        """Whether a view of the kernel reads a value from outside it, or through a view."""
        source = view.operands[0].owner
        return (
            not isinstance(source, Operation)
            or source not in group.members
            or (is_chain_link(source))
        )

    @staticmethod
    def sizes_known(group: Group) -> bool:
        """Whether the kernel can read the run-time size of each `?` dim of its domain
        (static dims need nothing: `bufferize` bounds any loop, see ir/fused.py)."""
        domain = group.domain()
        if DYNAMIC_INDEX not in domain:
            return True
        sizes = group.domain_sizes()
        return all(sizes[d] for d, n in enumerate(domain) if n == DYNAMIC_INDEX)

    @staticmethod
    def same_sizes(parts: Sequence[Group], merged: Group) -> bool:
        """Whether the kernels run over domains of one size at run time: equal static dims
        (the candidates have one domain type) and, per `?` dim, a size every part reads
        from the same place. Parts joined by a value one computes and another reads
        element-wise share one (sizes are looked up through all the parts' ops); two
        sums of `x[:i]` and `x[:j]` do not, and stay two loops."""
        domain = parts[0].domain()
        if DYNAMIC_INDEX not in domain:
            return True
        sizes = [part.domain_sizes(merged.members) for part in parts]
        return all(
            all(set(first) & set(other[d]) for other in sizes[1:])
            for d, first in enumerate(sizes[0])
            if domain[d] == DYNAMIC_INDEX
        )

    def would_cycle(self, parts: Sequence[Group]) -> bool:
        """Whether some part reaches another part through a node outside them."""
        successors = self.successors()
        inside: set[object] = set(parts)
        frontier = [s for p in parts for s in successors[p] if s not in inside]
        seen: set[object] = set(frontier)
        while frontier:
            node = frontier.pop()
            for nxt in successors[node]:
                if nxt in inside:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return False

    # --- the dependency graph of one segment's nodes (kernels and unfused ops) ----------
    def node_of(self, op: Operation) -> object:
        return self.home_of.get(op, op)

    def nodes(self, segment: int) -> list[object]:
        kept = [
            op
            for op in self.segment_ops(segment)
            if op not in self.home_of and op not in self.dropped and not self.groups_of.get(op)
        ]
        return kept + [g for g in self.groups if g.segment == segment]

    def segment_ops(self, segment: int) -> list[Operation]:
        return [op for op, s in self.segment_of.items() if s == segment]

    def reads(self, node: object) -> Sequence[SSAValue]:
        if isinstance(node, Group):
            return self.inputs(node)
        assert isinstance(node, Operation)
        return node.operands

    def successors(self) -> dict[object, list[object]]:
        if self.graph is None:
            self.graph = self.build_successors()
        return self.graph

    def build_successors(self) -> dict[object, list[object]]:
        successors: dict[object, list[object]] = defaultdict(list)
        for segment in {g.segment for g in self.groups}:
            for node in self.nodes(segment):
                for value in self.reads(node):
                    producer = self.producer(value, segment)
                    if producer is not None and self.node_of(producer) is not node:
                        successors[self.node_of(producer)].append(node)
        return successors

    def key(self, node: object) -> int:
        if isinstance(node, Group):
            return max(self.position[op] for op in node.homes)
        assert isinstance(node, Operation)
        return self.position[node]

    def topological_order(self, segment: int) -> list[object]:
        """The segment's nodes in dependency order, ties broken by original position."""
        nodes = self.nodes(segment)
        successors = self.successors()
        waiting = {id(n): 0 for n in nodes}
        for node in nodes:
            for nxt in set(map(id, successors[node])):
                waiting[nxt] += 1
        ready = [(self.key(n), i, n) for i, n in enumerate(nodes) if waiting[id(n)] == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, _, node = heapq.heappop(ready)
            order.append(node)
            for succ in {id(s): s for s in successors[node]}.values():
                waiting[id(succ)] -= 1
                if waiting[id(succ)] == 0:
                    heapq.heappush(ready, (self.key(succ), nodes.index(succ), succ))
        assert len(order) == len(nodes), "fuse-elementwise formed a dependency cycle"
        return order

    # --- rewriting ---------------------------------------------------------------------
    def rewrite(self) -> None:
        provided: dict[SSAValue, SSAValue] = {}
        replaced: set[Operation] = set(self.dropped)
        segments = sorted({g.segment for g in self.groups if self.is_kernel(g)})
        for segment in segments:
            replaced |= self.rewrite_segment(segment, provided)
        for old, new in provided.items():
            old.replace_all_uses_with(new)
        for op in sorted(replaced, key=self.position.__getitem__, reverse=True):
            if op.parent is not None:
                op.detach()
            op.erase(safe_erase=False)
        for op in list(self.block.ops):
            # splat constants now copied into the kernels, views moved into kernels past
            # a barrier (pure: dead now that the kernels read through copies of them)
            moved = isinstance(op, ConstantOp) or bool(self.groups_of.get(op))
            if moved and not any(result.uses for result in op.results):
                op.detach()
                op.erase()

    def is_kernel(self, group: Group) -> bool:
        """One op with nothing copied in stays as it is."""
        if len(group.members) > 1:
            return True
        (op,) = group.members
        return any(is_inlined_constant(v) for v in op.operands)

    def rewrite_segment(self, segment: int, provided: dict[SSAValue, SSAValue]) -> set[Operation]:
        """Re-emit the segment in dependency order with its kernels; return the ops the
        kernels replace (erased once every kernel is built)."""
        order = self.topological_order(segment)
        ops = self.segment_ops(segment)
        anchor = self.block_successor(ops)
        for op in ops:
            op.detach()
        replaced = {op for op in ops if self.groups_of.get(op) or op in self.dropped}
        for node in order:
            if isinstance(node, Group) and self.is_kernel(node) and not self.outputs(node):
                continue  # every user computes it again: nothing left to compute here
            if isinstance(node, Group) and self.is_kernel(node):
                node = self.build_kernel(node, provided)
            elif isinstance(node, Group):
                (node,) = node.members
                replaced.discard(node)
            assert isinstance(node, Operation)
            if anchor is None:
                self.block.add_op(node)
            else:
                self.block.insert_op_before(node, anchor)
        return replaced

    def block_successor(self, ops: list[Operation]) -> Operation | None:
        """The op right after a segment (its barrier), or None at the end of the block."""
        last = max(ops, key=self.position.__getitem__)
        return last.next_op

    def build_kernel(self, group: Group, provided: dict[SSAValue, SSAValue]) -> FusedOp:
        block = Block()
        mapping: dict[SSAValue, SSAValue] = {}
        inputs: list[SSAValue] = []

        def in_body(value: SSAValue) -> None:
            if value in mapping:
                return
            if is_inlined_constant(value):
                constant = defining_op(value).clone()
                block.add_op(constant)
                mapping[value] = constant.results[0]
                return
            mapping[value] = block.insert_arg(value.type, len(block.args))
            inputs.append(provided.get(value, value))

        for op in self.ordered(group.members):
            for value in op.operands:
                if value.owner not in group.members:
                    in_body(value)
            block.add_op(op.clone(value_mapper=mapping))
        outputs = self.outputs(group)
        block.add_op(YieldOp(*(mapping[v] for v in outputs)))
        kernel = FusedOp(inputs, [v.type for v in outputs], Region(block))
        kernel.location = max(group.homes, key=self.position.__getitem__).location
        for old, new in zip(outputs, kernel.res, strict=True):
            provided[old] = new
        return kernel


def fuse_block(block: Block, recompute_budget: int) -> None:
    """Fuse the ops of `block`, and of the blocks nested in its ops, into kernels."""
    for op in block.ops:
        if isinstance(op, FusedOp):
            continue
        for region in op.regions:
            for inner in region.blocks:
                fuse_block(inner, recompute_budget)
    fusion = BlockFusion(block, recompute_budget)
    fusion.form_groups()
    if not fusion.groups:
        return
    fusion.merge_groups()
    fusion.rewrite()


def fuse_elementwise(module: ModuleOp, recompute_budget: int = 8) -> None:
    fuse_block(module.body.block, recompute_budget)


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    """Element-wise chains, broadcasts and reduction prologues -> one tj.fused kernel each."""

    name = "fuse-elementwise"

    recompute_budget: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse_elementwise(op, self.recompute_budget)
