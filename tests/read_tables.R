# Reads tables with R's readers as a user calls them, and writes what R got, for
# tests/check_readers.py to compare with what glaneur wrote.
# Usage: Rscript tests/read_tables.R OUT_DIR TABLE...
# For the k-th TABLE (1-based), writes OUT_DIR/k.default (read.delim for .tsv, read.csv for
# .csv, default arguments) and OUT_DIR/k.documented (the same with the arguments
# docs/guide/exports.md gives: na.strings = "", check.names = FALSE) and OUT_DIR/k.read.table
# (read.table with header = TRUE and the delimiter, its other defaults: `'` quotes, `#`
# comments). Each dump is the column names,
# then one record per row: fields separated by U+001F, records ended by U+001E, a missing value
# written as U+0001 alone; a reader error (or warning) is U+0002 followed by R's message.
args <- commandArgs(trailingOnly = TRUE)
out_dir <- args[1]
tables <- args[-1]
dump <- function(d, path) {
  cells <- lapply(d, function(column) {
    text <- as.character(column)
    text[is.na(column)] <- "\x01"
    text
  })
  records <- if (nrow(d) > 0) do.call(paste, c(unname(cells), sep = "\x1f")) else character()
  con <- file(path, open = "wb")
  writeLines(c(paste(names(d), collapse = "\x1f"), records), con, sep = "\x1e", useBytes = TRUE)
  close(con)
}
for (k in seq_along(tables)) {
  path <- tables[k]
  tsv <- grepl("\\.tsv$", path)
  variants <- list(
    default = function() if (tsv) read.delim(path) else read.csv(path),
    documented = function() {
      if (tsv) read.delim(path, na.strings = "", check.names = FALSE)
      else read.csv(path, na.strings = "", check.names = FALSE)
    },
    read.table = function() read.table(path, header = TRUE, sep = if (tsv) "\t" else ",")
  )
  for (name in names(variants)) {
    target <- file.path(out_dir, paste0(k, ".", name))
    d <- tryCatch(variants[[name]](), error = conditionMessage, warning = conditionMessage)
    if (is.character(d)) {
      con <- file(target, open = "wb")
      writeLines(paste0("\x02", d), con, sep = "", useBytes = TRUE)
      close(con)
    } else {
      dump(d, target)
    }
  }
}
