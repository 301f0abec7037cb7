#' Glue strings together.
#' @export
glue <- function(..., .sep = "", .envir = parent.frame()) {
  glue_data(.x = NULL, ..., .sep = .sep, .envir = .envir)
}

MAX_LENGTH <- 1000

DEFAULT_OPTIONS <- list(
  trim = TRUE,
  open = "{"
)

glue_data <- function(.x,
                      ...,
                      .sep = "",
                      .envir = parent.frame()) {
  args <- list(...)
  paste(args, collapse = .sep)
}

trim = function(x) {
  gsub("^\\s+|\\s+$", "", x)
}

as_glue <- function(x, ...) UseMethod("as_glue")

defaults <- function() { list(
  trim = TRUE
) }

Printer <- R6::R6Class("Printer", public = list(
  prefix = "",
  print = function(x) {
    cat(self$prefix, x, "\n")
  }
))

read_template <- function(path) tryCatch({
  readLines(path, warn = FALSE)
}, error = function(e) character())

identity_fn <- function(x) x
