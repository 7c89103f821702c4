// canonicalize: a tj.slice from 0 by step 1 whose run-time sizes are the operand's own
// `tj.dim`s takes every element: it is the operand (`x[:n]` with n = len(x), as a slice
// matched to another array's run-time length is traced). A slice whose size comes from
// another value, or from another dim, is kept: it may be shorter.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @whole(%x: tensor<?x3xf64>)
  // CHECK-NEXT:    func.return %x : tensor<?x3xf64>
  func.func @whole(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
    %n = tj.dim %x, 0 : tensor<?x3xf64>
    %s = tj.slice %x, start = [0, 0], step = [1, 1] sizes(%n) : tensor<?x3xf64> to tensor<?x3xf64>
    func.return %s : tensor<?x3xf64>
  }
  // CHECK-LABEL: func.func @other_length(%x: tensor<?xf64>, %y: tensor<?xf64>)
  // CHECK:         %s = tj.slice %x, start = [0], step = [1] sizes(%n)
  // CHECK-NEXT:    func.return %s
  func.func @other_length(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
    %n = tj.dim %y, 0 : tensor<?xf64>
    %s = tj.slice %x, start = [0], step = [1] sizes(%n) : tensor<?xf64> to tensor<?xf64>
    func.return %s : tensor<?xf64>
  }
  // CHECK-LABEL: func.func @other_dim(%x: tensor<?x?xf64>)
  // CHECK:         %s = tj.slice %x, start = [0, 0], step = [1, 1] sizes(%m, %m)
  func.func @other_dim(%x: tensor<?x?xf64>) -> tensor<?x?xf64> {
    %m = tj.dim %x, 1 : tensor<?x?xf64>
    %s = tj.slice %x, start = [0, 0], step = [1, 1] sizes(%m, %m) : tensor<?x?xf64> to tensor<?x?xf64>
    func.return %s : tensor<?x?xf64>
  }
}
