// bufferize of `tj.to_index`: a checked one wraps a negative index and asserts the
// bounds; one prove-in-bounds marked in_bounds is a plain index_cast of the loaded value.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<8xf32>, %i: tensor<i64>, %j: tensor<i32>) -> tensor<2xf32> {
    %ii = tj.to_index %i, size = 8, "IndexError: checked" : tensor<i64>
    %jj = tj.to_index %j, size = 8, "IndexError: proved" in_bounds : tensor<i32>
    %a = tj.slice %x, start = [-9223372036854775808], step = [1] starts(%ii) : tensor<8xf32> to tensor<1xf32>
    %b = tj.slice %x, start = [-9223372036854775808], step = [1] starts(%jj) : tensor<8xf32> to tensor<1xf32>
    %r = tj.concat axis = 0, %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    func.return %r : tensor<2xf32>
  }
}

// CHECK:      %[[I:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK:      arith.select
// CHECK:      cf.assert %{{.*}}, "IndexError: checked"
// CHECK:      %[[J:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK-NEXT: %[[J64:.*]] = arith.extui %[[J]] : i32 to i64
// CHECK-NEXT: arith.index_cast %[[J64]] : i64 to index
// CHECK-NOT:  "IndexError: proved"
