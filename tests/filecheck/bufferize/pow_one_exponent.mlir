// bufferize of `tj.pow`: pow() element by element, except that a pow marked one_exponent
// (NumPy's float loop given one exponent, known only at run time) computes the exponents
// 0.5, -1 and 2 as sqrt(x), 1 / x and x * x, chosen per element by the exponent's value.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4xf64>, %y: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
    %marked = tj.pow %x, %y one_exponent : tensor<4xf64>
    %plain = tj.pow %x, %y : tensor<4xf64>
    func.return %marked, %plain : tensor<4xf64>, tensor<4xf64>
  }
}

// CHECK:      ^{{.*}}(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:   %[[POW:.*]] = math.powf %[[X]], %[[Y]] : f64
// CHECK-NEXT:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:   %[[AT_HALF:.*]] = arith.cmpf oeq, %[[Y]], %[[HALF]] : f64
// CHECK-NEXT:   %[[SQRT:.*]] = math.sqrt %[[X]] : f64
// CHECK-NEXT:   %[[R1:.*]] = arith.select %[[AT_HALF]], %[[SQRT]], %[[POW]] : f64
// CHECK-NEXT:   %[[MINUS_ONE:.*]] = arith.constant -1.000000e+00 : f64
// CHECK-NEXT:   %[[AT_MINUS_ONE:.*]] = arith.cmpf oeq, %[[Y]], %[[MINUS_ONE]] : f64
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:   %[[INVERSE:.*]] = arith.divf %[[ONE]], %[[X]] : f64
// CHECK-NEXT:   %[[R2:.*]] = arith.select %[[AT_MINUS_ONE]], %[[INVERSE]], %[[R1]] : f64
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:   %[[AT_TWO:.*]] = arith.cmpf oeq, %[[Y]], %[[TWO]] : f64
// CHECK-NEXT:   %[[SQUARE:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT:   %[[R3:.*]] = arith.select %[[AT_TWO]], %[[SQUARE]], %[[R2]] : f64
// CHECK-NEXT:   linalg.yield %[[R3]] : f64
// CHECK:      ^{{.*}}(%[[PX:.*]]: f64, %[[PY:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:   %[[P:.*]] = math.powf %[[PX]], %[[PY]] : f64
// CHECK-NEXT:   linalg.yield %[[P]] : f64
