// An op with no upstream form is refused with its name and line.
// RUN: not tracejit-opt %s -p export-linalg 2>&1 | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
    %s = tj.sort "values" %x, axis = 0 : tensor<3xf32> to tensor<3xf32> loc("model.py":7:5)
    func.return %s : tensor<3xf32>
  }
}

// CHECK: 'tj.sort' at model.py:7 has no upstream MLIR form in export-linalg
