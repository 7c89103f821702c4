// tj.linalg (every kind) prints, parses back and prints the same text: batched, dynamic and
// 0x0 stacks, real and complex elements.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @kinds(%a: tensor<2x3x3xf64>, %b: tensor<2x3x4xf64>, %c: tensor<?x?xcomplex<f32>>, %e: tensor<0x0xf32>) {
    %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>)
    %i, %ok1 = tj.linalg "inv" %e : (tensor<0x0xf32>) -> (tensor<0x0xf32>, tensor<i1>)
    %l, %ok2 = tj.linalg "cholesky" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?x?xcomplex<f32>>, tensor<i1>)
    %s, %d = tj.linalg "slogdet" %a : (tensor<2x3x3xf64>) -> (tensor<2xf64>, tensor<2xf64>)
    %cs, %cd = tj.linalg "slogdet" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>)
    func.return
  }
}

// CHECK:      %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>)
// CHECK-NEXT: %i, %ok1 = tj.linalg "inv" %e : (tensor<0x0xf32>) -> (tensor<0x0xf32>, tensor<i1>)
// CHECK-NEXT: %l, %ok2 = tj.linalg "cholesky" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?x?xcomplex<f32>>, tensor<i1>)
// CHECK-NEXT: %s, %d = tj.linalg "slogdet" %a : (tensor<2x3x3xf64>) -> (tensor<2xf64>, tensor<2xf64>)
// CHECK-NEXT: %cs, %cd = tj.linalg "slogdet" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>)
