// fuse-elementwise: slices whose start or count is a run-time `index` (A[i, :j], x[:i] in a
// staged loop) move into the kernel like static ones: the `index` values enter as block
// arguments, so the kernel stays self-contained, and its loops read the arrays in place.
// A view may read a view (a chain): a row slice seen as a vector through a reshape, a
// reversed slice of a slice (np.flip(y[:k])). Kernels over `?` dims merge only when they
// read their sizes from one place: sum(x[:i]) and sum(x[:i] ** 2) share a loop, sum(x[:j])
// does not (i and j may differ at run time). A view moves into a kernel past a barrier
// (the frontend's check that two slice lengths agree): it computes nothing, and reading
// through it after the check is reading it where it was.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @row_dot(%a: tensor<20x20xf64>, %i: index, %j: index, %n: index) -> tensor<f64> {
    %r = tj.slice %a, start = [-9223372036854775808, 0], step = [1, 1] starts(%i) sizes(%n) : tensor<20x20xf64> to tensor<1x?xf64>
    %rv = tj.reshape %r sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
    %s = tj.slice %a, start = [-9223372036854775808, 0], step = [1, 1] starts(%j) sizes(%n) : tensor<20x20xf64> to tensor<1x?xf64>
    %sv = tj.reshape %s sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
    %p = tj.mul %rv, %sv : tensor<?xf64>
    %d = tj.reduce "sum" %p, axes = [0] : tensor<?xf64> to tensor<f64>
    func.return %d : tensor<f64>
  }
  func.func @flip_update(%y: tensor<12xf64>, %alpha: tensor<f64>, %k: index, %last: index) -> tensor<12xf64> {
    %head = tj.slice %y, start = [0], step = [1] sizes(%k) : tensor<12xf64> to tensor<?xf64>
    %flip = tj.slice %head, start = [-9223372036854775808], step = [-1] starts(%last) sizes(%k) : tensor<?xf64> to tensor<?xf64>
    %ab = tj.broadcast_in_dim %alpha, dims = [] sizes(%k) : tensor<f64> to tensor<?xf64>
    %m = tj.mul %ab, %flip : tensor<?xf64>
    %s = tj.add %head, %m : tensor<?xf64>
    %new = tj.insert_slice %s into %y, start = [0], step = [1] : tensor<?xf64> into tensor<12xf64>
    func.return %new : tensor<12xf64>
  }
  func.func @two_lengths(%x: tensor<20xf64>, %i: index, %j: index) -> (tensor<f64>, tensor<f64>, tensor<f64>) {
    %a = tj.slice %x, start = [0], step = [1] sizes(%i) : tensor<20xf64> to tensor<?xf64>
    %b = tj.slice %x, start = [0], step = [1] sizes(%j) : tensor<20xf64> to tensor<?xf64>
    %sa = tj.reduce "sum" %a, axes = [0] : tensor<?xf64> to tensor<f64>
    %sb = tj.reduce "sum" %b, axes = [0] : tensor<?xf64> to tensor<f64>
    %q = tj.mul %a, %a : tensor<?xf64>
    %sq = tj.reduce "sum" %q, axes = [0] : tensor<?xf64> to tensor<f64>
    func.return %sa, %sb, %sq : tensor<f64>, tensor<f64>, tensor<f64>
  }
  func.func @checked_lengths(%x: tensor<5xf64>, %y: tensor<7xf64>, %i: index, %j: index) -> tensor<f64> {
    %a = tj.slice %x, start = [0], step = [1] sizes(%i) : tensor<5xf64> to tensor<?xf64>
    %b = tj.slice %y, start = [0], step = [1] sizes(%j) : tensor<7xf64> to tensor<?xf64>
    %same = arith.cmpi eq, %i, %j : index
    cf.assert %same, "ValueError: operands could not be broadcast together"
    %p = tj.mul %a, %b : tensor<?xf64>
    %s = tj.reduce "sum" %p, axes = [0] : tensor<?xf64> to tensor<f64>
    func.return %s : tensor<f64>
  }
}

// CHECK-LABEL: func.func @row_dot
// CHECK-NEXT:    %[[D:.*]] = tj.fused %a, %i, %n, %j : (tensor<20x20xf64>, index, index, index) -> tensor<f64> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<20x20xf64>, %[[I:.*]]: index, %[[N:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:      %[[R:.*]] = tj.slice %[[A]], {{.*}} starts(%[[I]]) sizes(%[[N]]) : tensor<20x20xf64> to tensor<1x?xf64>
// CHECK-NEXT:      %[[RV:.*]] = tj.reshape %[[R]] sizes(%[[N]]) : tensor<1x?xf64> to tensor<?xf64>
// CHECK-NEXT:      %[[S:.*]] = tj.slice %[[A]], {{.*}} starts(%[[J]]) sizes(%[[N]]) : tensor<20x20xf64> to tensor<1x?xf64>
// CHECK-NEXT:      %[[SV:.*]] = tj.reshape %[[S]] sizes(%[[N]]) : tensor<1x?xf64> to tensor<?xf64>
// CHECK-NEXT:      %[[P:.*]] = tj.mul %[[RV]], %[[SV]] : tensor<?xf64>
// CHECK-NEXT:      %[[SUM:.*]] = tj.reduce "sum" %[[P]], axes = [0] : tensor<?xf64> to tensor<f64>
// CHECK-NEXT:      tj.yield %[[SUM]] : tensor<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[D]]

// CHECK-LABEL: func.func @flip_update
// CHECK-NEXT:    %[[S:.*]] = tj.fused %y, %k, %last, %alpha : (tensor<12xf64>, index, index, tensor<f64>) -> tensor<?xf64> {
// CHECK-NEXT:    ^{{.*}}(%[[Y:.*]]: tensor<12xf64>, %[[K:.*]]: index, %[[LAST:.*]]: index, %[[AL:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[H:.*]] = tj.slice %[[Y]], start = [0], step = [1] sizes(%[[K]])
// CHECK-NEXT:      %[[F:.*]] = tj.slice %[[H]], start = [-9223372036854775808], step = [-1] starts(%[[LAST]]) sizes(%[[K]])
// CHECK-NEXT:      %[[AB:.*]] = tj.broadcast_in_dim %[[AL]], dims = [] sizes(%[[K]])
// CHECK-NEXT:      %[[M:.*]] = tj.mul %[[AB]], %[[F]]
// CHECK-NEXT:      %[[SUM:.*]] = tj.add %[[H]], %[[M]]
// CHECK-NEXT:      tj.yield %[[SUM]] : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    tj.insert_slice %[[S]] into %y

// CHECK-LABEL: func.func @two_lengths
// CHECK-NEXT:    %[[SB:.*]] = tj.fused %x, %j : (tensor<20xf64>, index) -> tensor<f64> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: tensor<20xf64>, %[[J:.*]]: index):
// CHECK-NEXT:      tj.slice {{.*}} sizes(%[[J]])
// CHECK-NEXT:      tj.reduce "sum"
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SA:.*]], %[[SQ:.*]] = tj.fused %x, %i : (tensor<20xf64>, index) -> (tensor<f64>, tensor<f64>) {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: tensor<20xf64>, %[[I:.*]]: index):
// CHECK-NEXT:      %[[A:.*]] = tj.slice {{.*}} sizes(%[[I]])
// CHECK-NEXT:      tj.reduce "sum" %[[A]]
// CHECK-NEXT:      tj.mul %[[A]], %[[A]]
// CHECK-NEXT:      tj.reduce "sum"
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[SA]], %[[SB]], %[[SQ]]

// CHECK-LABEL: func.func @checked_lengths
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %i, %j : index
// CHECK-NEXT:    cf.assert %[[SAME]]
// CHECK-NEXT:    %[[S:.*]] = tj.fused %x, %i, %y, %j : (tensor<5xf64>, index, tensor<7xf64>, index) -> tensor<f64> {
// CHECK:           tj.slice
// CHECK:           tj.slice
// CHECK:           tj.mul
// CHECK:           tj.reduce "sum"
// CHECK:         }
// CHECK-NEXT:    func.return %[[S]]
