// Chapter 02: a hand-written tj module (tracejit-opt docs/tutorial/examples/dialect.mlir)
builtin.module {
  func.func @scale(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
    %b = tj.broadcast_in_dim %s, dims = [] : tensor<f32> to tensor<2x3xf32>
    %y = tj.mul %x, %b : tensor<2x3xf32>
    %r = tj.reduce "sum" %y, axes = [0] : tensor<2x3xf32> to tensor<3xf32>
    func.return %r : tensor<3xf32>
  }
}
