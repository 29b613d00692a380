# Makes core/kit a package for cimport (core.kit.types); the kit's code is .pxi files that each engine
# includes (docs/engine-kit.md).
