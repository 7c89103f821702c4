# tracejit-opt --print-ir-after=fuse-elementwise on the traced W2 and W3 benchmark
# functions: each body is one tj.fused kernel (W3's division by the count is a 0-d
# kernel of its own).
# RUN: tracejit-opt %s:w2 --signature "f32[1000], f32[1000]" --pipeline default --print-ir-after=fuse-elementwise -o /dev/null 2>&1 | filecheck %s --check-prefix=W2
# RUN: tracejit-opt %s:w3 --signature "f32[1000], f32[1000]" --pipeline default --print-ir-after=fuse-elementwise -o /dev/null 2>&1 | filecheck %s --check-prefix=W3
import numpy as np


# W2:      func.func @w2(%{{.*}}: tensor<1000xf32>, %{{.*}}: tensor<1000xf32>) -> tensor<1000xf32> {
# W2-NEXT:   %[[K:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32> {
# W2-NOT:    tj.fused
# W2:          tj.tanh
# W2-NOT:    tj.fused
# W2:          tj.yield
# W2-NEXT:   }
# W2-NEXT:   func.return %[[K]] : tensor<1000xf32>
def w2(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


# W3:      func.func @w3(%{{.*}}: tensor<1000xf32>, %{{.*}}: tensor<1000xf32>) -> tensor<f32> {
# W3-NEXT:   %[[S:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<f32> {
# W3-NOT:    tj.fused
# W3:          tj.sub
# W3-NOT:    tj.fused
# W3:          tj.reduce "sum"
# W3-NEXT:     tj.yield
# W3-NEXT:   }
# W3-NEXT:   %[[M:.*]] = tj.fused %[[S]] : (tensor<f32>) -> tensor<f32> {
# W3:        func.return %[[M]] : tensor<f32>
def w3(x, y):
    return np.mean((x - y) ** 2)
