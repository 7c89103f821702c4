// Chapter 03: constants to fold, and a tj.if whose predicate is known.
builtin.module {
  func.func @fold(%x: tensor<3xf32>) -> tensor<3xf32> {
    %c = tj.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %sq = tj.mul %c, %c : tensor<3xf32>
    %e = tj.exp %sq : tensor<3xf32>
    %t = tj.constant dense<true> : tensor<i1>
    %r = tj.if %t : tensor<i1> -> tensor<3xf32> {
      %a = tj.add %x, %e : tensor<3xf32>
      tj.yield %a : tensor<3xf32>
    } else {
      tj.yield %x : tensor<3xf32>
    }
    func.return %r : tensor<3xf32>
  }
}
