// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s
// A reshape of a splat constant (the fuzzer's finding): a kernel copies splat constants into
// its body, where only a broadcast may read one, so the reshape stays outside any kernel
// (and the add, alone, needs none).

func.func @reshape_of_a_constant(%a: tensor<1xf64>) -> tensor<1xf64> {
  %c = tj.constant dense<-0.000000e+00> : tensor<f64>
  %r = tj.reshape %c : tensor<f64> to tensor<1xf64>
  %s = tj.add %r, %a : tensor<1xf64>
  func.return %s : tensor<1xf64>
}

// CHECK:      %[[C:.*]] = tj.constant dense<-0.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[R:.*]] = tj.reshape %[[C]] : tensor<f64> to tensor<1xf64>
// CHECK-NEXT: %{{.*}} = tj.add %[[R]], %a : tensor<1xf64>
// CHECK-NOT:  tj.fused
