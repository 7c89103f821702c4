// bufferize of tj.sort: a bottom-up merge sort of each short line along the axis, as scf
// loops (long lines take the radix sort: radix_sort.mlir). The scratch buffer has room for
// two copies of a line (2 * n, on the heap, freed after the last line); a line is copied in
// (with its positions 0..n-1 for "indices"), merged in passes of doubling width (scf.while)
// that alternate between the two halves, and copied out from the half the last pass wrote.
// The merge is branch-free: the right run's element goes first only when it sorts strictly
// before the left one (stable): for floats when it is a number and the left one is greater
// or NaN (`ugt`), so NaN goes after every number. Loads clamp an exhausted run's position
// into the run. Lines of 4 are known to be short: no radix sort is built for them; a line
// of dynamic length gets both sorts, and an scf.if picks one per call.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @sorts(%x: tensor<4x3xf32>, %u: tensor<?xui8>) -> (tensor<4x3xf32>, tensor<?xi64>) {
    %v = tj.sort "values" %x, axis = 0 : tensor<4x3xf32> to tensor<4x3xf32>
    %i = tj.sort "indices" %u, axis = 0 : tensor<?xui8> to tensor<?xi64>
    func.return %v, %i : tensor<4x3xf32>, tensor<?xi64>
  }
}

// CHECK:      func.func @sorts(%[[X:.*]]: memref<4x3xf32>, %[[U:.*]]: memref<?xi8>, %[[V:.*]]: memref<4x3xf32>, %[[I:.*]]: memref<?xi64>) {
// CHECK-NEXT:   %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[TWICE:.*]] = arith.addi %[[C4]], %[[C4]] : index
// CHECK-NEXT:   %[[KEYS:.*]] = memref.alloc(%[[TWICE]]) : memref<?xf32>
// CHECK-NOT:    memref<?xindex>
// CHECK:        scf.for %[[COL:.*]] = %{{.*}} to %[[C3]] step %{{.*}} {

// copy the column in
// CHECK:          scf.for %[[K:.*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK-NEXT:       %[[E:.*]] = memref.load %[[X]][%[[K]], %[[COL]]] : memref<4x3xf32>
// CHECK-NEXT:       memref.store %[[E]], %[[KEYS]][%[[K]]] : memref<?xf32>

// passes while width < n; each merges pairs of runs from `from` into n - from
// CHECK:          %{{.*}}, %[[START:.*]] = scf.while (%[[W0:.*]] = %{{.*}}, %[[F0:.*]] = %{{.*}}) : (index, index) -> (index, index) {
// CHECK-NEXT:       %[[MORE:.*]] = arith.cmpi ult, %[[W0]], %[[C4]] : index
// CHECK-NEXT:       scf.condition(%[[MORE]]) %[[W0]], %[[F0]] : index, index
// CHECK-NEXT:     } do {
// CHECK-NEXT:     ^{{.*}}(%[[W:.*]]: index, %[[FROM:.*]]: index):
// CHECK-NEXT:       %[[TO:.*]] = arith.subi %[[C4]], %[[FROM]] : index
// CHECK-NEXT:       %[[DOUBLE:.*]] = arith.addi %[[W]], %[[W]] : index
// CHECK:            scf.for %[[LO:.*]] = %{{.*}} to %[[C4]] step %[[DOUBLE]] {
// CHECK-NEXT:         %[[MID0:.*]] = arith.addi %[[LO]], %[[W]] : index
// CHECK-NEXT:         %[[MID:.*]] = arith.minui %[[MID0]], %[[C4]] : index
// CHECK-NEXT:         %[[HI0:.*]] = arith.addi %[[LO]], %[[DOUBLE]] : index
// CHECK-NEXT:         %[[HI:.*]] = arith.minui %[[HI0]], %[[C4]] : index
// CHECK:              scf.for %[[OUT:.*]] = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%[[L:.*]] = %[[LO]], %[[R:.*]] = %[[MID]]) -> (index, index) {
// CHECK:                %[[A:.*]] = memref.load %[[KEYS]]
// CHECK-NEXT:           %[[B:.*]] = memref.load %[[KEYS]]
// CHECK-NEXT:           %[[LEFT_DONE:.*]] = arith.cmpi uge, %[[L]], %[[MID]] : index
// CHECK-NEXT:           %[[RIGHT_OPEN:.*]] = arith.cmpi ult, %[[R]], %[[HI]] : index
// CHECK-NEXT:           %[[B_NUM:.*]] = arith.cmpf ord, %[[B]], %[[B]] : f32
// CHECK-NEXT:           %[[A_ABOVE:.*]] = arith.cmpf ugt, %[[A]], %[[B]] : f32
// CHECK-NEXT:           %[[BEFORE:.*]] = arith.andi %[[B_NUM]], %[[A_ABOVE]] : i1
// CHECK-NEXT:           %[[RIGHT:.*]] = arith.andi %[[RIGHT_OPEN]], %[[BEFORE]] : i1
// CHECK-NEXT:           %[[TAKE:.*]] = arith.ori %[[LEFT_DONE]], %[[RIGHT]] : i1
// CHECK-NEXT:           %[[AT:.*]] = arith.addi %[[TO]], %[[OUT]] : index
// CHECK-NEXT:           %[[PICK:.*]] = arith.select %[[TAKE]], %[[B]], %[[A]] : f32
// CHECK-NEXT:           memref.store %[[PICK]], %[[KEYS]][%[[AT]]] : memref<?xf32>
//                    the merges of one pass touch disjoint ranges: marked for threads
// CHECK:            } {tj.parallel}
// CHECK-NEXT:       scf.yield %[[DOUBLE]], %[[TO]] : index, index

// copy the sorted column out of the half the last pass wrote
// CHECK:          scf.for %[[K:.*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK-NEXT:       %[[AT:.*]] = arith.addi %[[START]], %[[K]] : index
// CHECK-NEXT:       %[[E:.*]] = memref.load %[[KEYS]][%[[AT]]] : memref<?xf32>
// CHECK-NEXT:       memref.store %[[E]], %[[V]][%[[K]], %[[COL]]] : memref<4x3xf32>
// CHECK:        memref.dealloc %[[KEYS]] : memref<?xf32>

// argsort of a dynamic unsigned line: the counts of the radix sort too (one digit of 256
// buckets per chunk), and the merge sort for lines shorter than 8 elements (one 8-bit
// digit; or longer than 2^32, whose positions would not pack with the keys into an i64)
// in the scf.if's else branch: unsigned compare, positions merged alongside the keys, and
// the positions are what is copied out of the half the merge passes end in. (The radix
// sort's last pass stores into the result itself: radix_sort.mlir.)
// CHECK:        %[[N:.*]] = memref.dim %[[U]], %{{.*}} : memref<?xi8>
// CHECK-NEXT:   %[[TWICE:.*]] = arith.addi %[[N]], %[[N]] : index
// CHECK-NEXT:   %[[UKEYS:.*]] = memref.alloc(%[[TWICE]]) : memref<?xi8>
// CHECK-NEXT:   %[[POS:.*]] = memref.alloc(%[[TWICE]]) : memref<?xi64>
// CHECK:        %[[COUNTS:.*]] = memref.alloc(%{{.*}}) : memref<?xindex>
// CHECK-NEXT:   %[[MIN:.*]] = arith.constant 8 : index
// CHECK-NEXT:   %[[LONG:.*]] = arith.cmpi uge, %[[N]], %[[MIN]] : index
// CHECK-NEXT:   %[[MAX:.*]] = arith.constant 4294967296 : index
// CHECK-NEXT:   %[[FITS:.*]] = arith.cmpi ule, %[[N]], %[[MAX]] : index
// CHECK-NEXT:   %[[RADIX_SORTED:.*]] = arith.andi %[[LONG]], %[[FITS]] : i1
// CHECK-NEXT:   scf.if %[[RADIX_SORTED]] {
// CHECK:          %[[PASSES:.*]] = scf.for %{{.*}} iter_args
// CHECK:          %[[FINAL:.*]] = arith.subi %[[PASSES]], %{{.*}} : index
// CHECK-NEXT:     scf.for %{{.*}} = %{{.*}} to %[[FINAL]] step
// CHECK:          memref.store %{{.*}}, %[[I]][%{{.*}}] : memref<?xi64>
// CHECK-NEXT:   }
// CHECK-NEXT:   }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:       %[[E:.*]] = memref.load %[[U]][%[[K]]] : memref<?xi8>
// CHECK-NEXT:       memref.store %[[E]], %[[UKEYS]][%[[K]]] : memref<?xi8>
// CHECK-NEXT:       %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT:       memref.store %[[K64]], %[[POS]][%[[K]]] : memref<?xi64>
// CHECK:          %{{.*}}, %[[START:.*]] = scf.while
// CHECK:          arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK:          arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:     memref.store %{{.*}}, %[[POS]]
// CHECK:            } {tj.parallel}
// CHECK-NEXT:       scf.yield %{{.*}}, %{{.*}} : index, index
// CHECK-NEXT:     }
// CHECK-NEXT:     %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:       %[[AT:.*]] = arith.addi %[[START]], %[[K]] : index
// CHECK-NEXT:       memref.load %[[POS]][%[[AT]]]
// CHECK-NEXT:       memref.store %{{.*}}, %[[I]]
// CHECK:        memref.dealloc %[[UKEYS]] : memref<?xi8>
// CHECK-NEXT:   memref.dealloc %[[POS]] : memref<?xi64>
// CHECK-NEXT:   memref.dealloc %[[COUNTS]] : memref<?xindex>
