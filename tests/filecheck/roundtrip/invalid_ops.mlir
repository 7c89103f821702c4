// RUN: not tracejit-opt %s 2>&1 | filecheck %s --check-prefix=EXP
// RUN: sed -e 's/tj.exp %x : tensor<4xi32>/tj.broadcast_in_dim %y, dims = [0] : tensor<3xf32> to tensor<4xf32>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=BCAST

builtin.module {
  func.func @bad(%x: tensor<4xi32>, %y: tensor<3xf32>) {
    %e = tj.exp %x : tensor<4xi32>
    func.return
  }
}

// EXP: tj.exp expects a float tensor, got i32
// BCAST: tj.broadcast_in_dim cannot broadcast dim of size 3 to 4
