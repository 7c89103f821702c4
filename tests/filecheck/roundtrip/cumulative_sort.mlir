// tj.cumulative (every kind) and tj.sort (values and indices) print, parse back and print
// the same text, static and dynamic shapes, size 0 included.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @scans_and_sorts(%x: tensor<4x3xf32>, %n: tensor<5xui8>, %d: tensor<?x2xi64>, %b: tensor<0x3xi1>) {
    %s = tj.cumulative "sum" %x, axis = 1 : tensor<4x3xf32>
    %p = tj.cumulative "prod" %n, axis = 0 : tensor<5xui8>
    %q = tj.cumulative "sum" %d, axis = 0 : tensor<?x2xi64>
    %v = tj.sort "values" %x, axis = 0 : tensor<4x3xf32> to tensor<4x3xf32>
    %i = tj.sort "indices" %d, axis = 1 : tensor<?x2xi64> to tensor<?x2xi64>
    %e = tj.sort "values" %b, axis = 0 : tensor<0x3xi1> to tensor<0x3xi1>
    func.return
  }
}

// CHECK:      tj.cumulative "sum" %{{.*}}, axis = 1 : tensor<4x3xf32>
// CHECK-NEXT: tj.cumulative "prod" %{{.*}}, axis = 0 : tensor<5xui8>
// CHECK-NEXT: tj.cumulative "sum" %{{.*}}, axis = 0 : tensor<?x2xi64>
// CHECK-NEXT: tj.sort "values" %{{.*}}, axis = 0 : tensor<4x3xf32> to tensor<4x3xf32>
// CHECK-NEXT: tj.sort "indices" %{{.*}}, axis = 1 : tensor<?x2xi64> to tensor<?x2xi64>
// CHECK-NEXT: tj.sort "values" %{{.*}}, axis = 0 : tensor<0x3xi1> to tensor<0x3xi1>
