// fuse-elementwise: an op that every one of its users computes again in its own kernel
// (`%126 = add %101, 0.5` here: cheap, and read by two chains that end up in two kernels)
// is left with no user outside a kernel; it is dropped, never emitted as a kernel with no
// results (which tj.fused's verifier rejects). Found by the fuzzer
// (tests/fuzz/regressions/test_fuzz_d807e4dac0.py), cut down to the branch that failed.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @f(%101: tensor<f32>, %105: tensor<f32>, %106: tensor<f32>, %107: tensor<f32>, %108: tensor<f32>, %109: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
    %125 = tj.constant dense<5.000000e-01> : tensor<f32>
    %126 = tj.add %101, %125 : tensor<f32>
    %127 = tj.constant dense<2.000000e+00> : tensor<f32>
    %128 = tj.add %105, %127 : tensor<f32>
    %129 = tj.sub %126, %109 : tensor<f32>
    %130 = tj.sub %126, %107 : tensor<f32>
    %131 = tj.sub %129, %127 : tensor<f32>
    %132 = tj.sub %130, %106 : tensor<f32>
    %133 = tj.sub %132, %107 : tensor<f32>
    %134 = tj.sub %131, %127 : tensor<f32>
    %135 = tj.sub %133, %106 : tensor<f32>
    %136 = tj.add %108, %134 : tensor<f32>
    %137 = tj.add %128, %127 : tensor<f32>
    %138 = tj.sub %135, %109 : tensor<f32>
    %139 = tj.sub %135, %107 : tensor<f32>
    %140 = tj.sub %138, %127 : tensor<f32>
    %141 = tj.sub %139, %106 : tensor<f32>
    %142 = tj.sub %141, %107 : tensor<f32>
    %143 = tj.sub %140, %127 : tensor<f32>
    %144 = tj.sub %142, %106 : tensor<f32>
    %145 = tj.add %136, %143 : tensor<f32>
    %146 = tj.add %137, %127 : tensor<f32>
    %147 = tj.sub %144, %109 : tensor<f32>
    %148 = tj.sub %144, %107 : tensor<f32>
    %149 = tj.sub %147, %127 : tensor<f32>
    %150 = tj.sub %148, %106 : tensor<f32>
    %151 = tj.sub %150, %107 : tensor<f32>
    %152 = tj.sub %149, %127 : tensor<f32>
    %153 = tj.sub %151, %106 : tensor<f32>
    %154 = tj.add %145, %152 : tensor<f32>
    %155 = tj.add %146, %127 : tensor<f32>
    %156 = tj.sub %153, %109 : tensor<f32>
    %157 = tj.sub %153, %107 : tensor<f32>
    %158 = tj.sub %156, %127 : tensor<f32>
    %159 = tj.sub %157, %106 : tensor<f32>
    %160 = tj.sub %159, %107 : tensor<f32>
    %161 = tj.sub %158, %127 : tensor<f32>
    %162 = tj.sub %160, %106 : tensor<f32>
    %163 = tj.add %154, %161 : tensor<f32>
    func.return %162, %163, %155 : tensor<f32>, tensor<f32>, tensor<f32>
  }
}

// CHECK:      func.func @f(
// CHECK-NOT:  -> () {
// CHECK:        %[[ONE:.*]] = tj.fused %{{.*}} : (tensor<f32>) -> tensor<f32> {
// CHECK-NOT:  -> () {
// CHECK:        %[[TWO:.*]], %[[THREE:.*]] = tj.fused {{.*}} -> (tensor<f32>, tensor<f32>) {
// CHECK:          tj.add %{{.*}}, %{{.*}} : tensor<f32>
// CHECK-NOT:  -> () {
// CHECK:        func.return %[[TWO]], %[[THREE]], %[[ONE]] : tensor<f32>, tensor<f32>, tensor<f32>
