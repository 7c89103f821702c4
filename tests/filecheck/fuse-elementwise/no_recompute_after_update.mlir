// fuse-elementwise does not recompute, in a later kernel, an op that reads an array an
// update replaces in between (Thomas's algorithm: `m = b - a * cp[i - 1]`, then
// `cp[i] = c / m`, then `dp[i] = (d - a * dp[i - 1]) / m`): recomputed for `dp[i]` after
// the insert into cp, `m` would read the old cp, which bufferize must then keep by copying
// the whole array on every trip. Here `m` stays in one home, and the kernels of its two
// users merge there: both divisions run before the update.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @f(%cp: tensor<64xf64>, %i: index, %im1: index, %a: tensor<f64>, %c: tensor<f64>, %d: tensor<f64>) -> (tensor<64xf64>, tensor<f64>) {
    %old = tj.slice %cp, start = [-9223372036854775808], step = [1] starts(%im1) : tensor<64xf64> to tensor<1xf64>
    %olds = tj.reshape %old : tensor<1xf64> to tensor<f64>
    %am = tj.mul %a, %olds : tensor<f64>
    %m = tj.sub %c, %am : tensor<f64>
    %q = tj.div %c, %m : tensor<f64>
    %q1 = tj.reshape %q : tensor<f64> to tensor<1xf64>
    %cp2 = tj.insert_slice %q1 into %cp, start = [-9223372036854775808], step = [1] starts(%i) : tensor<1xf64> into tensor<64xf64>
    %r = tj.div %d, %m : tensor<f64>
    func.return %cp2, %r : tensor<64xf64>, tensor<f64>
  }
}

// CHECK:      %{{.*}}, %{{.*}} = tj.fused %{{.*}} -> (tensor<f64>, tensor<f64>) {
// CHECK:        tj.slice
// CHECK:        %[[M:.*]] = tj.sub
// CHECK:        tj.div %{{.*}}, %[[M]]
// CHECK:        tj.div %{{.*}}, %[[M]]
// CHECK:      }
// CHECK:      tj.insert_slice
// CHECK-NOT:  tj.slice
// CHECK:      func.return
