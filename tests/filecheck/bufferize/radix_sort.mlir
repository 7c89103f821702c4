// bufferize of tj.sort, long lines: the LSD radix sort (passes/bufferize/radix_sort.py).
// A line of dynamic length takes it from 8 elements per 8-bit digit of its key on (f32: 4
// digits, 32 elements), the merge sort below that: both are built, an scf.if chooses. A
// line known to be long at trace time builds the radix sort alone.
// The scratch buffer holds the elements themselves; a float's key is computed where it is
// needed: -0.0 as +0.0, then negative numbers with every bit flipped, others with the sign
// bit, and NaN (any sign or payload) the largest key. The counts, per chunk of 65536
// elements (threads may share the chunks), are counted for every digit while the line is
// loaded. The passes end at the last digit that moves anything; each (skipped when one
// bucket holds the whole line) turns a digit's counts into bucket starts and scatters the
// elements, in order, into the other half; the last one scatters into the result.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @radix(%x: tensor<?xf32>, %y: tensor<300xi16>) -> (tensor<?xf32>, tensor<300xi64>) {
    %v = tj.sort "values" %x, axis = 0 : tensor<?xf32> to tensor<?xf32>
    %i = tj.sort "indices" %y, axis = 0 : tensor<300xi16> to tensor<300xi64>
    func.return %v, %i : tensor<?xf32>, tensor<300xi64>
  }
}

// CHECK:      func.func @radix(%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<300xi16>, %[[V:.*]]: memref<?xf32>, %[[I:.*]]: memref<300xi64>) {
// CHECK:        %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK-NEXT:   %[[TWICE:.*]] = arith.addi %[[N]], %[[N]] : index
// CHECK-NEXT:   %[[SCRATCH:.*]] = memref.alloc(%[[TWICE]]) : memref<?xf32>
// CHECK-NEXT:   %[[CHUNK:.*]] = arith.constant 65536 : index
// CHECK-NEXT:   %[[CHUNKS:.*]] = arith.ceildivui %[[N]], %[[CHUNK]] : index
// CHECK-NEXT:   %[[PER_CHUNK:.*]] = arith.constant 1024 : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.muli %[[CHUNKS]], %[[PER_CHUNK]] : index
// CHECK-NEXT:   %[[COUNTS:.*]] = memref.alloc(%[[SIZE]]) : memref<?xindex>
// CHECK-NEXT:   %[[MIN:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %[[LONG:.*]] = arith.cmpi uge, %[[N]], %[[MIN]] : index
// CHECK-NEXT:   scf.if %[[LONG]] {

// each chunk clears its counts, loads its elements and counts their 4 digits
// CHECK:          scf.for %[[C:.*]] = %{{.*}} to %[[CHUNKS]] step %{{.*}} {
// CHECK:            %[[HI:.*]] = arith.minui %{{.*}}, %[[N]] : index
// CHECK:            scf.for
// CHECK-NEXT:         arith.addi
// CHECK-NEXT:         memref.store %{{.*}}, %[[COUNTS]]
// CHECK:            scf.for %[[K:.*]] = %{{.*}} to %[[HI]] step %{{.*}} {
// CHECK-NEXT:         %[[E:.*]] = memref.load %[[X]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:         %[[IS_ZERO:.*]] = arith.cmpf oeq, %[[E]], %[[ZERO]] : f32
// CHECK-NEXT:         %[[NUMBER:.*]] = arith.select %[[IS_ZERO]], %[[ZERO]], %[[E]] : f32
// CHECK-NEXT:         %[[BITS:.*]] = arith.bitcast %[[NUMBER]] : f32 to i32
// CHECK-NEXT:         %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:         %[[NEGATIVE:.*]] = arith.shrsi %[[BITS]], %[[C31]] : i32
// CHECK-NEXT:         %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:         %[[FLIPS:.*]] = arith.ori %[[NEGATIVE]], %[[SIGN]] : i32
// CHECK-NEXT:         %[[ORDERED:.*]] = arith.xori %[[BITS]], %[[FLIPS]] : i32
// CHECK-NEXT:         %[[NAN:.*]] = arith.cmpf uno, %[[E]], %[[E]] : f32
// CHECK-NEXT:         %[[LARGEST:.*]] = arith.constant -1 : i32
// CHECK-NEXT:         %[[KEY:.*]] = arith.select %[[NAN]], %[[LARGEST]], %[[ORDERED]] : i32
// CHECK-NEXT:         memref.store %[[E]], %[[SCRATCH]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:         %[[DIGITS:.*]] = arith.constant 4 : index
// CHECK-NEXT:         scf.for %[[D:.*]] = %{{.*}} to %[[DIGITS]] step %{{.*}} {
// CHECK:                %[[SHIFTED:.*]] = arith.shrui %[[KEY]], %{{.*}} : i32
// CHECK-NEXT:           %[[MASK:.*]] = arith.constant 255 : i32
// CHECK-NEXT:           %[[DIGIT:.*]] = arith.andi %[[SHIFTED]], %[[MASK]] : i32
// CHECK-NEXT:           %[[BUCKET:.*]] = arith.index_cast %[[DIGIT]] : i32 to index
// CHECK-NEXT:           %[[SLOT:.*]] = arith.addi %{{.*}}, %[[BUCKET]] : index
// CHECK-NEXT:           %[[COUNT:.*]] = memref.load %[[COUNTS]][%[[SLOT]]] : memref<?xindex>
// CHECK-NEXT:           %[[MORE:.*]] = arith.addi %[[COUNT]], %{{.*}} : index
// CHECK-NEXT:           memref.store %[[MORE]], %[[COUNTS]][%[[SLOT]]] : memref<?xindex>
// CHECK:          } {tj.parallel}

// the other chunks' counts are added to the first chunk's (no loop for one chunk)
// CHECK-NEXT:     scf.for %{{.*}} = %[[ONE:.*]] to %[[CHUNKS]] step %[[ONE]] {
// CHECK:              memref.store %{{.*}}, %[[COUNTS]]

// the key of the line's first element: a digit that every element shares is its digit;
// the passes end after the last digit that some element does not share
// CHECK:          %[[FIRST:.*]] = memref.load %[[X]][%{{.*}}] : memref<?xf32>
// CHECK:          %[[KEY0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:     %[[DIGITS:.*]] = arith.constant 4 : index
// CHECK-NEXT:     %[[PASSES:.*]] = scf.for %[[D:.*]] = %{{.*}} to %[[DIGITS]] step %[[ONE:.*]] iter_args(%[[LAST:.*]] = %{{.*}}) -> (index) {
// CHECK:            %[[SHIFTED:.*]] = arith.shrui %[[KEY0]], %{{.*}} : i32
// CHECK:            %[[ALONE:.*]] = memref.load %[[COUNTS]][%{{.*}}] : memref<?xindex>
// CHECK-NEXT:       %[[MOVES:.*]] = arith.cmpi ne, %[[ALONE]], %[[N]] : index
// CHECK-NEXT:       %[[AFTER:.*]] = arith.addi %[[D]], %[[ONE]] : index
// CHECK-NEXT:       %[[NEW_LAST:.*]] = arith.select %[[MOVES]], %[[AFTER]], %[[LAST]] : index
// CHECK-NEXT:       scf.yield %[[NEW_LAST]] : index

// a line of one key is sorted as it is
// CHECK:          %[[NONE:.*]] = arith.cmpi eq, %[[PASSES]], %{{.*}} : index
// CHECK-NEXT:     scf.if %[[NONE]] {
// CHECK-NEXT:       scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:         %[[E:.*]] = memref.load %[[X]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:         memref.store %[[E]], %[[V]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     } else {

// the passes before the last, carrying the half the line is in; a digit every element
// shares moves nothing: its pass is skipped
// CHECK-NEXT:       %[[FINAL:.*]] = arith.subi %[[PASSES]], %{{.*}} : index
// CHECK-NEXT:       %[[FROM_LAST:.*]] = scf.for %[[D:.*]] = %{{.*}} to %[[FINAL]] step %{{.*}} iter_args(%[[FROM:.*]] = %{{.*}}) -> (index) {
// CHECK:              %[[ALONE:.*]] = memref.load %[[COUNTS]][%{{.*}}] : memref<?xindex>
// CHECK-NEXT:         %[[MOVES:.*]] = arith.cmpi ne, %[[ALONE]], %[[N]] : index
// CHECK-NEXT:         %[[NEXT:.*]] = scf.if %[[MOVES]] -> (index) {
// CHECK-NEXT:           %[[TO:.*]] = arith.subi %[[N]], %[[FROM]] : index

//                       bucket starts: exclusive prefix sums of the digit's counts
// CHECK:                %[[BASE:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK:                scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (index) {
// CHECK-NEXT:             %[[AT:.*]] = arith.addi %[[BASE]], %[[B]] : index
// CHECK-NEXT:             %[[COUNT:.*]] = memref.load %[[COUNTS]][%[[AT]]] : memref<?xindex>
// CHECK-NEXT:             memref.store %[[SUM]], %[[COUNTS]][%[[AT]]] : memref<?xindex>
// CHECK-NEXT:             %[[SUM2:.*]] = arith.addi %[[SUM]], %[[COUNT]] : index
// CHECK-NEXT:             scf.yield %[[SUM2]] : index

//                       the scatter, in order (stable): each element to its bucket's next place
// CHECK:                %[[SHIFT:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:           scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:             %[[AT:.*]] = arith.addi %[[FROM]], %[[K]] : index
// CHECK-NEXT:             %[[E:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// CHECK:                  %[[KEY:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:             %[[SHIFTED:.*]] = arith.shrui %[[KEY]], %[[SHIFT]] : i32
// CHECK:                  %[[SLOT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:             %[[PLACE:.*]] = memref.load %[[COUNTS]][%[[SLOT]]] : memref<?xindex>
// CHECK-NEXT:             %[[AFTER:.*]] = arith.addi %[[PLACE]], %{{.*}} : index
// CHECK-NEXT:             memref.store %[[AFTER]], %[[COUNTS]][%[[SLOT]]] : memref<?xindex>
// CHECK-NEXT:             %[[OUT:.*]] = arith.addi %[[TO]], %[[PLACE]] : index
// CHECK-NEXT:             memref.store %[[E]], %[[SCRATCH]][%[[OUT]]] : memref<?xf32>
// CHECK-NEXT:           }
// CHECK-NEXT:           scf.yield %[[TO]] : index
// CHECK-NEXT:         } else {
// CHECK-NEXT:           scf.yield %[[FROM]] : index
// CHECK-NEXT:         }
// CHECK-NEXT:         scf.yield %[[NEXT]] : index
// CHECK-NEXT:       }

// the last pass (it always moves something) scatters into the result
// CHECK:            %[[FINAL_BASE:.*]] = arith.muli %[[FINAL]], %{{.*}} : index
// CHECK:            scf.for
// CHECK:            scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:         %[[AT:.*]] = arith.addi %[[FROM_LAST]], %[[K]] : index
// CHECK-NEXT:         %[[E:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// CHECK:              %[[PLACE:.*]] = memref.load %[[COUNTS]][%[[SLOT:.*]]] : memref<?xindex>
// CHECK-NEXT:         %[[AFTER:.*]] = arith.addi %[[PLACE]], %{{.*}} : index
// CHECK-NEXT:         memref.store %[[AFTER]], %[[COUNTS]][%[[SLOT]]] : memref<?xindex>
// CHECK-NEXT:         memref.store %[[E]], %[[V]][%[[PLACE]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }

// short lines: the merge sort, which loads the line itself and copies it out
// CHECK-NEXT:   } else {
// CHECK:          scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:       %[[E:.*]] = memref.load %[[X]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:       memref.store %[[E]], %[[SCRATCH]][%[[K]]] : memref<?xf32>
// CHECK:          %{{.*}}, %[[START:.*]] = scf.while
// CHECK:            } {tj.parallel}
// CHECK-NEXT:       scf.yield %{{.*}}, %{{.*}} : index, index
// CHECK-NEXT:     }
// CHECK:          scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:       %[[AT:.*]] = arith.addi %[[START]], %[[K]] : index
// CHECK-NEXT:       %[[E:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// CHECK-NEXT:       memref.store %[[E]], %[[V]][%[[K]]] : memref<?xf32>
// CHECK:        memref.dealloc %[[SCRATCH]] : memref<?xf32>
// CHECK-NEXT:   memref.dealloc %[[COUNTS]] : memref<?xindex>

// argsort of 300 int16: known to be long, so the radix sort alone (no merge sort). The
// key flips the sign bit; a key of 32 bits or fewer is packed above its position,
// key << 32 | k, and only those i64 move; the last pass stores the positions alone.
// CHECK:        %[[POS:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NOT:    scf.while
// CHECK:          %[[E16:.*]] = memref.load %[[Y]][%[[K:.*]]] : memref<300xi16>
// CHECK-NEXT:     %[[SIGN16:.*]] = arith.constant -32768 : i16
// CHECK-NEXT:     %[[KEY16:.*]] = arith.xori %[[E16]], %[[SIGN16]] : i16
// CHECK-NEXT:     %[[KEY32:.*]] = arith.extui %[[KEY16]] : i16 to i32
// CHECK-NEXT:     %[[KEY64:.*]] = arith.extui %[[KEY32]] : i32 to i64
// CHECK-NEXT:     %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT:     %[[HIGH:.*]] = arith.shli %[[KEY64]], %[[C32]] : i64
// CHECK-NEXT:     %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT:     %[[PACKED:.*]] = arith.ori %[[HIGH]], %[[K64]] : i64
// CHECK-NEXT:     memref.store %[[PACKED]], %[[POS]][%[[K]]] : memref<?xi64>
//               a line of one key: positions 0 .. n-1
// CHECK:        scf.if
// CHECK:            %[[K64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:       memref.store %[[K64]], %[[I]][%{{.*}}] : memref<300xi64>
// CHECK:        } else {
//                 a digit of the packed key: 32 bits further up
// CHECK:              %[[UP:.*]] = arith.constant 32 : index
// CHECK-NEXT:         %[[BITS:.*]] = arith.addi %{{.*}}, %[[UP]] : index
// CHECK-NEXT:         %[[SHIFT:.*]] = arith.index_cast %[[BITS]] : index to i64
// CHECK:                %[[P:.*]] = memref.load %[[POS]][%{{.*}}] : memref<?xi64>
// CHECK-NEXT:           %[[DIGIT:.*]] = arith.shrui %[[P]], %[[SHIFT]] : i64
// CHECK:                memref.store %[[P]], %[[POS]][%{{.*}}] : memref<?xi64>
//                 the last pass: the position without its key, into the result
// CHECK:            %[[Q:.*]] = memref.load %[[POS]]
// CHECK:            %[[PLACE:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xindex>
// CHECK:            %[[LOW:.*]] = arith.constant 4294967295 : i64
// CHECK-NEXT:       %[[ALONE:.*]] = arith.andi %[[Q]], %[[LOW]] : i64
// CHECK-NEXT:       memref.store %[[ALONE]], %[[I]][%[[PLACE]]] : memref<300xi64>
// CHECK:        func.return
