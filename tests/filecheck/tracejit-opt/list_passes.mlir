// --list-passes and --help print the pass registry with descriptions (and options) and
// the default pipeline; tests/tools/test_opt_cli.py checks they match passes/pipeline.py.
// RUN: tracejit-opt --list-passes | filecheck %s
// RUN: tracejit-opt --help | filecheck %s --check-prefixes=CHECK,HELP
// HELP: usage: tracejit-opt
// HELP: --print-changed
// HELP: --emit {tj,loops,cf,llvm,asm,dot,linalg}
// CHECK: bufferize {{ +}}Tensors -> memrefs
// CHECK: canonicalize
// CHECK: cse {{ +}}Common subexpression elimination
// CHECK: lower-to-loops
// CHECK: scf-to-cf
// CHECK: default pipeline: inline,canonicalize,cse,{{[a-z,-]+}},lower-asserts
// CHECK: named pipelines (--pipeline):
// CHECK-NEXT: default
// CHECK-NEXT: tensor-opt {{ +}}inline,canonicalize,cse
// CHECK-NEXT: lower {{ +}}{{[a-z,-]+}}lower-asserts
