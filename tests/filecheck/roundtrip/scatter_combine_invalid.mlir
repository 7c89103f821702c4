// Verifiers of tj.scatter_combine: each case is rejected with its own message.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @unknown_combiner(%a: tensor<4xf32>, %v: tensor<2xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.scatter_combine combiner 'tj.where' is not an element-wise tj op (or one of square, reciprocal, identity)}}
  %r = tj.scatter_combine "tj.where" %v into %a[%idx], "IndexError: out of bounds" : tensor<2xf32> into tensor<4xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @unary_with_updates(%a: tensor<4xf32>, %v: tensor<2xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.scatter_combine with a unary combiner takes a 0-d updates operand}}
  %r = tj.scatter_combine "tj.exp" %v into %a[%idx], "IndexError: out of bounds" : tensor<2xf32> into tensor<4xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @unary_domain(%a: tensor<4xi32>, %t: tensor<i32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{reciprocal is not defined on i32 updates}}
  %r = tj.scatter_combine "reciprocal" %t into %a[%idx], "IndexError: out of bounds" : tensor<i32> into tensor<4xi32>, tensor<2xi64>
  func.return
}

// -----

func.func @counts(%a: tensor<4xf32>, %v: tensor<3xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.scatter_combine needs one update per index}}
  %r = tj.scatter_combine "tj.add" %v into %a[%idx], "IndexError: out of bounds" : tensor<3xf32> into tensor<4xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @domain(%a: tensor<4xf32>, %v: tensor<2xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.bitwise_and is not defined on f32 updates}}
  %r = tj.scatter_combine "tj.bitwise_and" %v into %a[%idx], "IndexError: out of bounds" : tensor<2xf32> into tensor<4xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @two_d(%a: tensor<2x2xf32>, %v: tensor<2xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.scatter_combine updates a 1-d dest and returns its type}}
  %r = tj.scatter_combine "tj.add" %v into %a[%idx], "IndexError: out of bounds" : tensor<2xf32> into tensor<2x2xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @float_indices(%a: tensor<4xf32>, %v: tensor<2xf32>, %idx: tensor<2xf32>) {
  // expected-error @+1 {{tj.scatter_combine indices must be a 1-d integer tensor}}
  %r = tj.scatter_combine "tj.add" %v into %a[%idx], "IndexError: out of bounds" : tensor<2xf32> into tensor<4xf32>, tensor<2xf32>
  func.return
}
