// RUN: tracejit-opt %s -p stream-stores | filecheck %s --check-prefix=DEFAULT
// RUN: tracejit-opt %s -p 'stream-stores{min-bytes=1024}' | filecheck %s --check-prefix=SMALL
// RUN: tracejit-opt %s -p 'stream-stores{min-bytes=67108864}' | filecheck %s --check-prefix=BIG
// RUN: not tracejit-opt %s -p 'stream-stores{min-bytes=-1}' 2>&1 | filecheck %s --check-prefix=BAD

// `min-bytes` decides which outputs are written around the cache. Without it the pass uses
// 32 MiB on every machine (it reads no host facts; the compiler driver gives the host's
// last-level cache size): @big writes 32 MiB and streams, @half writes 16 MiB and does not.
func.func @big(%x: memref<8388608xf32>, %o: memref<8388608xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 8388608 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<8388608xf32>
    memref.store %a, %o[%i] : memref<8388608xf32>
  }
  func.return
}

func.func @half(%x: memref<4194304xf32>, %o: memref<4194304xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4194304 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<4194304xf32>
    memref.store %a, %o[%i] : memref<4194304xf32>
  }
  func.return
}

// DEFAULT-LABEL: func.func @big
// DEFAULT:         vector.store %{{.*}}, %o[%{{.*}}] nontemporal = true
// DEFAULT-LABEL: func.func @half
// DEFAULT-NOT:     vector.store

// SMALL-LABEL:   func.func @big
// SMALL:           vector.store %{{.*}}, %o[%{{.*}}] nontemporal = true
// SMALL-LABEL:   func.func @half
// SMALL:           vector.store %{{.*}}, %o[%{{.*}}] nontemporal = true

// BIG-NOT:       vector.store

// BAD:           stream-stores: min-bytes must be >= 0, got -1
