// Package pdfiumwasm is PDFium compiled to WebAssembly, reduced to what
// Trawl calls: go-pdfium's module (Source) with every export but Exports
// removed, and the functions, globals and imports no kept export reaches
// with them (Binaryen's wasm-metadce). Code reached through the function
// table stays: PDFium's virtual calls go through it.
//
// Trawl compiles less of it (about 70% of the original code section), so
// a worker process loads it from the compilation cache in less time and
// holds less machine code; what the kept functions compute is unchanged,
// byte for byte the original's code.
//
// The module is generated, never edited: make generate runs
// internal/generate on the go-pdfium go.mod pins, with the Binaryen that
// tools/binaryen pins. A function Trawl starts calling is added to the
// generator's list first.
//
// Licences: PDFium is under the BSD 3-clause licence (parts under the
// Apache License 2.0), with its third-party libraries under their own
// (FreeType, libjpeg-turbo, OpenJPEG, Little CMS, zlib, AGG, Abseil);
// the C and C++ runtimes linked in are Emscripten's libc (MIT) and LLVM's
// libc++ and libc++abi (Apache License 2.0 with LLVM exceptions);
// go-pdfium, which builds it for WebAssembly, is under the MIT licence.
package pdfiumwasm

import _ "embed"

// Module is the reduced module: what go-pdfium's webassembly.Config.WASM
// takes.
//
//go:embed pdfium.wasm
var Module []byte
