"""
    CSV

Reading and writing delimited files.
"""
module CSV

using Dates

const DEFAULT_DELIM = ','

const DEFAULT_OPTIONS = Dict(
    :header => 1,
    :normalizenames => false,
)

abstract type AbstractFile end

"""
    File(source; kw...)

Read a delimited file.
"""
struct File{threaded} <: AbstractFile
    name::String
    names::Vector{Symbol}
end

mutable struct Row
    file::File
    index::Int
end

getnames(r::Row) = getfield(r, :names)

getcolumn(r::Row, col::Int) = getfield(r, :file).columns[col]

function File(source::String;
              header::Integer=1,
              delim::Char=DEFAULT_DELIM)
    names = Symbol[]
    return File{false}(source, names)
end

function Base.show(io::IO, f::File)
    print(io, "CSV.File(\"", f.name, "\")")
end

function rows(f::File) Dict(
    :count => length(f.names),
)
end

@inline function detect(buf::Vector{UInt8}, pos::Int)
    return buf[pos] == UInt8('"')
end

macro check(ex)
    return :($(esc(ex)) || throw(ArgumentError("check failed")))
end

function noop() end

end # module
