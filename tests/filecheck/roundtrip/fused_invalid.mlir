// The tj.fused verifier rejects bodies that are not one loop nest; the error points at the
// tj.fused op.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @reshape_inside(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{tj.fused: tj.reshape must read a block argument}}
  %k = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %d = tj.sub %a, %b : tensor<8xf32>
    %q = tj.reshape %d : tensor<8xf32> to tensor<8xf32>
    %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
    tj.yield %r : tensor<f32>
  }
  func.return %k : tensor<f32>
}

// -----

func.func @reshape_not_a_view(%x: tensor<2x4xf32>, %y: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{tj.fused cannot read through this tj.reshape}}
  %k = tj.fused %x, %y : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>):
    %q = tj.reshape %a : tensor<2x4xf32> to tensor<4x2xf32>
    %d = tj.sub %q, %b : tensor<4x2xf32>
    tj.yield %d : tensor<4x2xf32>
  }
  func.return %k : tensor<4x2xf32>
}

// -----

func.func @transpose_of_a_result(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tj.fused: tj.transpose must read a block argument}}
  %k = tj.fused %x : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %e = tj.exp %a : tensor<4x4xf32>
    %t = tj.transpose %e, permutation = [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
    %d = tj.sub %e, %t : tensor<4x4xf32>
    tj.yield %d : tensor<4x4xf32>
  }
  func.return %k : tensor<4x4xf32>
}

// -----

func.func @reduction_and_elementwise_results(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{tj.fused with a reduction can only yield reduction results}}
  %k, %k2 = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %d = tj.sub %a, %b : tensor<8xf32>
    %q = tj.mul %d, %d : tensor<8xf32>
    %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
    tj.yield %r, %q : tensor<f32>, tensor<8xf32>
  }
  func.return %k : tensor<f32>
}

// -----

func.func @broadcast_of_a_result(%x: tensor<8x4xf32>, %m: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{tj.broadcast_in_dim must read a block argument, a view of one or a constant}}
  %r = tj.fused %x, %m : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %c: tensor<4xf32>):
    %e = tj.exp %a : tensor<8x4xf32>
    %mb = tj.broadcast_in_dim %e, dims = [0, 1] : tensor<8x4xf32> to tensor<8x4xf32>
    %d = tj.sub %e, %mb : tensor<8x4xf32>
    tj.yield %d : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @captured_value(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{Operation using value defined out of its IsolatedFromAbove parent}}
  %r = tj.fused %y : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%b: tensor<8x4xf32>):
    %e = tj.exp %x : tensor<8x4xf32>
    %d = tj.sub %e, %b : tensor<8x4xf32>
    tj.yield %d : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @chain_of_views_from_a_constant(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{tj.fused: tj.slice must read a block argument or a view of one}}
  %r = tj.fused %x : (tensor<4xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = tj.constant dense<1.0> : tensor<f32>
    %b = tj.broadcast_in_dim %c, dims = [] : tensor<f32> to tensor<4xf32>
    %s = tj.slice %b, start = [0], step = [2] : tensor<4xf32> to tensor<2xf32>
    %t = tj.slice %a, start = [1], step = [2] : tensor<4xf32> to tensor<2xf32>
    %d = tj.sub %s, %t : tensor<2xf32>
    tj.yield %d : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}

// -----

func.func @results_of_two_domains(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{tj.fused: a result of shape [2] is not of the kernel's domain [4]}}
  %r, %q = tj.fused %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = tj.exp %a : tensor<4xf32>
    %s = tj.slice %a, start = [0], step = [2] : tensor<4xf32> to tensor<2xf32>
    tj.yield %e, %s : tensor<4xf32>, tensor<2xf32>
  }
  func.return %r : tensor<4xf32>
}
