// canonicalize carries a tj.while value in the shape the loop reads it in: when the body
// reads it only reshaped to one static shape (here raveled, for a scatter at flat
// positions, as `N[rows, cols] = v` is traced) and yields a reshape back, the loop carries
// the raveled value: one reshape before the loop, one after, none per trip -- and the
// scatter's destination is the loop's own value, which bufferize then updates in place.
// A value also read in its own shape (%keep) is carried as it is.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

// CHECK-LABEL: func.func @scatter_in_a_loop
// CHECK:         %[[FLAT:.*]] = tj.reshape %{{.*}} : tensor<4x5xi64> to tensor<20xi64>
// CHECK:         %{{.*}}, %[[R:.*]], %[[KEEP:.*]] = tj.while %{{.*}}, %[[FLAT]], %{{.*}} : (tensor<i64>, tensor<20xi64>, tensor<4x5xi64>) -> (tensor<i64>, tensor<20xi64>, tensor<4x5xi64>) {
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<i64>, %[[N:.*]]: tensor<20xi64>, %[[K:.*]]: tensor<4x5xi64>):
// CHECK-NOT:       tj.reshape
// CHECK:           %[[S:.*]] = tj.scatter %{{.*}} into %[[N]][%{{.*}}]
// CHECK:           %[[KF:.*]] = tj.reshape %[[K]] : tensor<4x5xi64> to tensor<20xi64>
// CHECK:           tj.reshape %{{.*}} : tensor<20xi64> to tensor<4x5xi64>
// CHECK:           %[[K2:.*]] = tj.add %{{.*}}, %[[K]] : tensor<4x5xi64>
// CHECK:           tj.yield %{{.*}}, %[[S]], %[[K2]] : tensor<i64>, tensor<20xi64>, tensor<4x5xi64>
// CHECK:         }
// CHECK:         %[[BACK:.*]] = tj.reshape %[[R]] : tensor<20xi64> to tensor<4x5xi64>
// CHECK:         func.return %[[BACK]], %[[KEEP]]

builtin.module {
  func.func @scatter_in_a_loop(%n0: tensor<4x5xi64>, %at: tensor<3xi64>) -> (tensor<4x5xi64>, tensor<4x5xi64>) {
    %zero = tj.constant dense<0> : tensor<i64>
    %i, %n, %keep = tj.while %zero, %n0, %n0 : (tensor<i64>, tensor<4x5xi64>, tensor<4x5xi64>) -> (tensor<i64>, tensor<4x5xi64>, tensor<4x5xi64>) {
    ^bb0(%a: tensor<i64>, %b: tensor<4x5xi64>, %c: tensor<4x5xi64>):
      %ten = tj.constant dense<10> : tensor<i64>
      %go = tj.compare "lt" %a, %ten : tensor<i64> -> tensor<i1>
      tj.condition %go : tensor<i1>
    } do {
    ^bb0(%x: tensor<i64>, %y: tensor<4x5xi64>, %k: tensor<4x5xi64>):
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.add %x, %one : tensor<i64>
      %flat = tj.reshape %y : tensor<4x5xi64> to tensor<20xi64>
      %v = tj.broadcast_in_dim %next, dims = [] : tensor<i64> to tensor<3xi64>
      %set = tj.scatter %v into %flat[%at], "IndexError: out of bounds" : tensor<3xi64> into tensor<20xi64>, tensor<3xi64>
      %back = tj.reshape %set : tensor<20xi64> to tensor<4x5xi64>
      %kflat = tj.reshape %k : tensor<4x5xi64> to tensor<20xi64>
      %kk = tj.add %kflat, %kflat : tensor<20xi64>
      %kback = tj.reshape %kk : tensor<20xi64> to tensor<4x5xi64>
      %sum = tj.add %kback, %k : tensor<4x5xi64>
      tj.yield %next, %back, %sum : tensor<i64>, tensor<4x5xi64>, tensor<4x5xi64>
    }
    func.return %n, %keep : tensor<4x5xi64>, tensor<4x5xi64>
  }
}
