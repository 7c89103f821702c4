// prove-in-bounds on a triangular loop nest (`for i in range(N - 1, -1, -1): for k in
// range(i + 1, N): t[i, k] + t[k - 1, i]` with N = 8): the counters' intervals come from
// their starts, steps and conditions (i in [0, 7], k in [i + 1, 7] = [1, 7], k - 1 in
// [0, 6]), so those indices are marked in_bounds; k + 1 (up to 8) is not, and keeps its
// check, and so does an index into a smaller dim (k into size 4).
// RUN: tracejit-opt %s -p prove-in-bounds | filecheck %s

builtin.module {
  func.func @f(%t: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %top = tj.constant dense<7> : tensor<i64>
    %r0, %r1 = tj.while %top, %t : (tensor<i64>, tensor<8x8xf32>) -> (tensor<i64>, tensor<8x8xf32>) {
    ^bb0(%i: tensor<i64>, %a: tensor<8x8xf32>):
      %stop = tj.constant dense<-1> : tensor<i64>
      %c = tj.compare "gt" %i, %stop : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %a: tensor<8x8xf32>):
      %one = tj.constant dense<1> : tensor<i64>
      %k0 = tj.add %i, %one : tensor<i64>
      %s0, %s1 = tj.while %k0, %a : (tensor<i64>, tensor<8x8xf32>) -> (tensor<i64>, tensor<8x8xf32>) {
      ^bb0(%k: tensor<i64>, %b: tensor<8x8xf32>):
        %n = tj.constant dense<8> : tensor<i64>
        %ck = tj.compare "lt" %k, %n : tensor<i64> -> tensor<i1>
        tj.condition %ck : tensor<i1>
      } do {
      ^bb0(%k: tensor<i64>, %b: tensor<8x8xf32>):
        %ii = tj.to_index %i, size = 8, "IndexError: i" : tensor<i64>
        %kk = tj.to_index %k, size = 8, "IndexError: k" : tensor<i64>
        %one1 = tj.constant dense<1> : tensor<i64>
        %km1 = tj.sub %k, %one1 : tensor<i64>
        %kkm1 = tj.to_index %km1, size = 8, "IndexError: k - 1" : tensor<i64>
        %kp1 = tj.add %k, %one1 : tensor<i64>
        %kkp1 = tj.to_index %kp1, size = 8, "IndexError: k + 1" : tensor<i64>
        %small = tj.to_index %k, size = 4, "IndexError: k in 4" : tensor<i64>
        %x = tj.slice %b, start = [-9223372036854775808, -9223372036854775808], step = [1, 1] starts(%ii, %kk) : tensor<8x8xf32> to tensor<1x1xf32>
        %b2 = tj.insert_slice %x into %b, start = [-9223372036854775808, -9223372036854775808], step = [1, 1] starts(%kkm1, %ii) : tensor<1x1xf32> into tensor<8x8xf32>
        %b3 = tj.insert_slice %x into %b2, start = [-9223372036854775808, -9223372036854775808], step = [1, 1] starts(%kkp1, %small) : tensor<1x1xf32> into tensor<8x8xf32>
        tj.yield %kp1, %b3 : tensor<i64>, tensor<8x8xf32>
      }
      %down = tj.constant dense<-1> : tensor<i64>
      %inext = tj.add %i, %down : tensor<i64>
      tj.yield %inext, %s1 : tensor<i64>, tensor<8x8xf32>
    }
    func.return %r1 : tensor<8x8xf32>
  }
}

// CHECK:      tj.to_index %{{.*}}, size = 8, "IndexError: i" in_bounds
// CHECK-NEXT: tj.to_index %{{.*}}, size = 8, "IndexError: k" in_bounds
// CHECK:      tj.to_index %{{.*}}, size = 8, "IndexError: k - 1" in_bounds
// CHECK:      tj.to_index %{{.*}}, size = 8, "IndexError: k + 1" :
// CHECK-NEXT: tj.to_index %{{.*}}, size = 4, "IndexError: k in 4" :
