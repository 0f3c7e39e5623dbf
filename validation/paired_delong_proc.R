# pROC's paired DeLong test on the data sets of validation/paired_delong_proc.py.
# Usage: Rscript validation/paired_delong_proc.R [data.csv] [output.txt]
# For each (dataset, group): roc.test(roc_b, roc_a, paired=TRUE, method="delong"), i.e.
# (AUC_B - AUC_A) / sd, with both curves' direction fixed ("<": controls score lower).
suppressPackageStartupMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
here <- "validation/results"
data_path <- if (length(args) >= 1) args[1] else file.path(here, "paired_delong_proc_data.csv")
out_path <- if (length(args) >= 2) args[2] else file.path(here, "paired_delong_proc.txt")
d <- read.csv(data_path, stringsAsFactors = FALSE)
keys <- unique(d[, c("dataset", "group")])
rows <- list()
for (k in seq_len(nrow(keys))) {
  s <- d[d$dataset == keys$dataset[k] & d$group == keys$group[k], ]
  ra <- roc(s$y, s$score_a, levels = c(0, 1), direction = "<", quiet = TRUE)
  rb <- roc(s$y, s$score_b, levels = c(0, 1), direction = "<", quiet = TRUE)
  t <- roc.test(rb, ra, paired = TRUE, method = "delong")
  rows[[k]] <- data.frame(
    dataset = keys$dataset[k], group = keys$group[k],
    statistic = sprintf("%.17g", unname(t$statistic)),
    auc_a = sprintf("%.17g", as.numeric(auc(ra))), auc_b = sprintf("%.17g", as.numeric(auc(rb))),
    var_a = sprintf("%.17g", var(ra, method = "delong")),
    var_b = sprintf("%.17g", var(rb, method = "delong")),
    cov = sprintf("%.17g", cov(ra, rb, method = "delong")),
    n_pos = sum(s$y == 1), n_neg = sum(s$y == 0)
  )
}
out <- do.call(rbind, rows)
con <- file(out_path, "w")
writeLines(c(
  paste0("# pROC ", as.character(packageVersion("pROC")), ", ", R.version.string,
         ", run ", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")),
  "# roc.test(roc_b, roc_a, paired=TRUE, method='delong') per (dataset, group); data:",
  "# validation/results/paired_delong_proc_data.csv (validation/paired_delong_proc.py)"
), con)
write.csv(out, con, row.names = FALSE, quote = FALSE)
close(con)
