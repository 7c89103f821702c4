// Every element-wise tj op added for NumPy coverage prints, parses back and prints the same.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @elementwise(%x: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>, %b: tensor<4xi1>) {
    %sign = tj.sign %x : tensor<4xf32>
    %bitwise_not = tj.bitwise_not %i : tensor<4xi32>
    %expm1 = tj.expm1 %x : tensor<4xf32>
    %exp2 = tj.exp2 %x : tensor<4xf32>
    %log1p = tj.log1p %x : tensor<4xf32>
    %log2 = tj.log2 %x : tensor<4xf32>
    %log10 = tj.log10 %x : tensor<4xf32>
    %cbrt = tj.cbrt %x : tensor<4xf32>
    %erf = tj.erf %x : tensor<4xf32>
    %sin = tj.sin %x : tensor<4xf32>
    %cos = tj.cos %x : tensor<4xf32>
    %tan = tj.tan %x : tensor<4xf32>
    %arcsin = tj.arcsin %x : tensor<4xf32>
    %arccos = tj.arccos %x : tensor<4xf32>
    %arctan = tj.arctan %x : tensor<4xf32>
    %sinh = tj.sinh %x : tensor<4xf32>
    %cosh = tj.cosh %x : tensor<4xf32>
    %arcsinh = tj.arcsinh %x : tensor<4xf32>
    %arccosh = tj.arccosh %x : tensor<4xf32>
    %arctanh = tj.arctanh %x : tensor<4xf32>
    %floor = tj.floor %x : tensor<4xf32>
    %ceil = tj.ceil %x : tensor<4xf32>
    %trunc = tj.trunc %x : tensor<4xf32>
    %rint = tj.rint %x : tensor<4xf32>
    %floor_divide = tj.floor_divide %x, %x : tensor<4xf32>
    %remainder = tj.remainder %x, %x : tensor<4xf32>
    %fmod = tj.fmod %x, %x : tensor<4xf32>
    %fmax = tj.fmax %x, %x : tensor<4xf32>
    %fmin = tj.fmin %x, %x : tensor<4xf32>
    %arctan2 = tj.arctan2 %x, %x : tensor<4xf32>
    %hypot = tj.hypot %x, %x : tensor<4xf32>
    %copysign = tj.copysign %x, %x : tensor<4xf32>
    %bitwise_and = tj.bitwise_and %i, %i : tensor<4xi32>
    %bitwise_or = tj.bitwise_or %i, %i : tensor<4xi32>
    %bitwise_xor = tj.bitwise_xor %i, %i : tensor<4xi32>
    %left_shift = tj.left_shift %i, %i : tensor<4xi32>
    %right_shift = tj.right_shift %i, %i : tensor<4xi32>
    %bnot = tj.bitwise_not %b : tensor<4xi1>
    %band = tj.bitwise_and %b, %b : tensor<4xi1>
    %lt = tj.compare "lt" %x, %x : tensor<4xf32> -> tensor<4xi1>
    %ge = tj.compare "ge" %u, %u : tensor<4xui8> -> tensor<4xi1>
    %sel = tj.select %lt, %x, %x : tensor<4xi1>, tensor<4xf32>
    %ufd = tj.floor_divide %u, %u : tensor<4xui8>
    func.return
  }
}

// CHECK: func.func @elementwise(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xui8>, %{{.*}}: tensor<4xi1>) {
// CHECK-NEXT:   %{{.*}} = tj.sign %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_not %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.expm1 %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.exp2 %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.log1p %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.log2 %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.log10 %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.cbrt %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.erf %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.sin %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.cos %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.tan %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arcsin %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arccos %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arctan %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.sinh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.cosh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arcsinh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arccosh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arctanh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.floor %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.ceil %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.trunc %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.rint %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.floor_divide %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.remainder %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.fmod %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.fmax %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.fmin %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.arctan2 %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.hypot %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.copysign %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_and %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_or %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_xor %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.left_shift %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.right_shift %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_not %{{.*}} : tensor<4xi1>
// CHECK-NEXT:   %{{.*}} = tj.bitwise_and %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK-NEXT:   %{{.*}} = tj.compare "lt" %{{.*}}, %{{.*}} : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:   %{{.*}} = tj.compare "ge" %{{.*}}, %{{.*}} : tensor<4xui8> -> tensor<4xi1>
// CHECK-NEXT:   %{{.*}} = tj.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.floor_divide %{{.*}}, %{{.*}} : tensor<4xui8>
// CHECK-NEXT:   func.return
