// RUN: tracejit-opt %s -p value-and-grad | filecheck %s
// The adjoints of tj.linalg stage tj.linalg ops like the forward pass: d logabsdet / d A
// = A^-T (an "inv" of A, transposed, scaled by the cotangent); x = solve(A, b) gives
// gb = solve(A^T, g) and gA = -gb x^T; the eigenvalues' cotangent g_w gives
// V diag(g_w) V^T, of which the lower triangle (eigh reads that one) is the gradient.

func.func @logdet(%a: tensor<3x3xf64>) -> tensor<f64> {
  %s, %l = tj.linalg "slogdet" %a : (tensor<3x3xf64>) -> (tensor<f64>, tensor<f64>)
  func.return %l : tensor<f64>
}

func.func @solve(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> tensor<f64> {
  %x, %ok = tj.linalg "solve" %a, %b : (tensor<3x3xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<i1>)
  %r = tj.reduce "sum" %x, axes = [0, 1] : tensor<3x2xf64> to tensor<f64>
  func.return %r : tensor<f64>
}

func.func @eigenvalues(%a: tensor<2x2xf64>) -> tensor<f64> {
  %w, %ok = tj.linalg "eigvalsh" %a : (tensor<2x2xf64>) -> (tensor<2xf64>, tensor<i1>)
  %r = tj.reduce "sum" %w, axes = [0] : tensor<2xf64> to tensor<f64>
  func.return %r : tensor<f64>
}

// CHECK:      func.func @logdet_value_and_grad(%[[A:.*]]: tensor<3x3xf64>) -> (tensor<f64>, tensor<3x3xf64>) {
// CHECK-NEXT:   %{{.*}}, %[[L:.*]] = tj.linalg "slogdet" %[[A]] : (tensor<3x3xf64>) -> (tensor<f64>, tensor<f64>)
// CHECK:        %[[INV:.*]], %{{.*}} = tj.linalg "inv" %[[A]] : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i1>)
// CHECK-NEXT:   %[[INVT:.*]] = tj.transpose %[[INV]], permutation = [1, 0] : tensor<3x3xf64> to tensor<3x3xf64>
// CHECK:        %[[GA:.*]] = tj.mul %{{.*}}, %[[INVT]] : tensor<3x3xf64>
// CHECK-NEXT:   func.return %[[L]], %[[GA]] : tensor<f64>, tensor<3x3xf64>

// CHECK:      func.func @solve_value_and_grad(%[[A:.*]]: tensor<3x3xf64>, %{{.*}}: tensor<3x2xf64>) -> (tensor<f64>, tensor<3x3xf64>, tensor<3x2xf64>) {
// CHECK-NEXT:   %[[X:.*]], %{{.*}} = tj.linalg "solve" %[[A]], %{{.*}}
// CHECK:        %[[AT:.*]] = tj.transpose %[[A]], permutation = [1, 0] : tensor<3x3xf64> to tensor<3x3xf64>
// CHECK-NEXT:   %[[GB:.*]], %{{.*}} = tj.linalg "solve" %[[AT]], %{{.*}} : (tensor<3x3xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<i1>)
// CHECK-NEXT:   %[[XT:.*]] = tj.transpose %[[X]], permutation = [1, 0] : tensor<3x2xf64> to tensor<2x3xf64>
// CHECK-NEXT:   %[[P:.*]] = tj.matmul %[[GB]], %[[XT]] : (tensor<3x2xf64>, tensor<2x3xf64>) -> tensor<3x3xf64>
// CHECK-NEXT:   %[[GA:.*]] = tj.neg %[[P]] : tensor<3x3xf64>
// CHECK-NEXT:   func.return %{{.*}}, %[[GA]], %[[GB]] : tensor<f64>, tensor<3x3xf64>, tensor<3x2xf64>

// CHECK:      func.func @eigenvalues_value_and_grad(%[[A:.*]]: tensor<2x2xf64>) -> (tensor<f64>, tensor<2x2xf64>) {
// CHECK:        %{{.*}}, %[[V:.*]], %{{.*}} = tj.linalg "eigh" %[[A]] : (tensor<2x2xf64>) -> (tensor<2xf64>, tensor<2x2xf64>, tensor<i1>)
// CHECK:        tj.matmul %[[V]], %{{.*}} : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK:        tj.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00]]> : tensor<2x2xf64>
