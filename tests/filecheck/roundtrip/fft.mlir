// tj.fft (every direction, every norm) prints, parses back and prints the same text, with
// complex64 and complex128 elements, dynamic dims off the axis and an empty batch; the
// optional scale_type (NumPy's float16 scale for a float16 input) in the attribute dict.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @transforms(%x: tensor<8xcomplex<f64>>, %y: tensor<?x6xcomplex<f32>>, %e: tensor<0x3xcomplex<f64>>, %r: tensor<7x?xf32>) {
    %f = tj.fft "forward" %x, axis = 0, norm = "backward" : tensor<8xcomplex<f64>> to tensor<8xcomplex<f64>>
    %i = tj.fft "inverse" %x, axis = 0, norm = "ortho" : tensor<8xcomplex<f64>> to tensor<8xcomplex<f64>>
    %g = tj.fft "forward" %y, axis = 1, norm = "forward" : tensor<?x6xcomplex<f32>> to tensor<?x6xcomplex<f32>>
    %h = tj.fft "inverse" %e, axis = 1, norm = "backward" : tensor<0x3xcomplex<f64>> to tensor<0x3xcomplex<f64>>
    %s = tj.fft "real_forward" %r, axis = 0, norm = "ortho" : tensor<7x?xf32> to tensor<4x?xcomplex<f32>>
    %t = tj.fft "real_inverse" %s, axis = 0, norm = "backward" : tensor<4x?xcomplex<f32>> to tensor<6x?xf32>
    %u = tj.fft "real_inverse" %x, axis = 0, norm = "forward" : tensor<8xcomplex<f64>> to tensor<15xf64>
    %v = tj.fft "forward" %y, axis = 1, norm = "ortho" {scale_type = "float16"} : tensor<?x6xcomplex<f32>> to tensor<?x6xcomplex<f32>>
    func.return
  }
}

// CHECK:      tj.fft "forward" %{{.*}}, axis = 0, norm = "backward" : tensor<8xcomplex<f64>> to tensor<8xcomplex<f64>>
// CHECK-NEXT: tj.fft "inverse" %{{.*}}, axis = 0, norm = "ortho" : tensor<8xcomplex<f64>> to tensor<8xcomplex<f64>>
// CHECK-NEXT: tj.fft "forward" %{{.*}}, axis = 1, norm = "forward" : tensor<?x6xcomplex<f32>> to tensor<?x6xcomplex<f32>>
// CHECK-NEXT: tj.fft "inverse" %{{.*}}, axis = 1, norm = "backward" : tensor<0x3xcomplex<f64>> to tensor<0x3xcomplex<f64>>
// CHECK-NEXT: tj.fft "real_forward" %{{.*}}, axis = 0, norm = "ortho" : tensor<7x?xf32> to tensor<4x?xcomplex<f32>>
// CHECK-NEXT: tj.fft "real_inverse" %{{.*}}, axis = 0, norm = "backward" : tensor<4x?xcomplex<f32>> to tensor<6x?xf32>
// CHECK-NEXT: tj.fft "real_inverse" %{{.*}}, axis = 0, norm = "forward" : tensor<8xcomplex<f64>> to tensor<15xf64>
// CHECK-NEXT: tj.fft "forward" %{{.*}}, axis = 1, norm = "ortho" {scale_type = "float16"} : tensor<?x6xcomplex<f32>> to tensor<?x6xcomplex<f32>>
