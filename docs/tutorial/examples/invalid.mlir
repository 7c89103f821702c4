// Chapter 02: IR that parses but does not verify (true division is defined on floats only).
builtin.module {
  func.func @bad(%x: tensor<4xi32>) -> tensor<4xi32> {
    %r = tj.div %x, %x : tensor<4xi32>
    func.return %r : tensor<4xi32>
  }
}
