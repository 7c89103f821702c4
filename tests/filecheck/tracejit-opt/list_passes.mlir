// RUN: tracejit-opt --list-passes | filecheck %s
// RUN: tracejit-opt --help | filecheck %s --check-prefix=HELP
// CHECK: bufferize
// CHECK: canonicalize
// CHECK: cse
// CHECK: lower-to-loops
// CHECK: scf-to-cf
// HELP: default pipeline: inline,canonicalize,cse,lower-control-flow,bufferize,lower-to-loops,canonicalize,scf-to-cf,lower-asserts
