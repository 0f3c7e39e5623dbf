# clubSandwich's cluster-robust variances of the parity curve's estimates, on the data sets of
# validation/parity_cr2_clubsandwich.py.
# Usage: Rscript validation/parity_cr2_clubsandwich.R [data.csv] [points.csv] [output.txt]
# For each (dataset, group, point): row weights k = w_m * exp(-u^2 / 2) for |u| < 8,
# u = (score - point) / bandwidth (fastfair's truncated Gaussian kernel), w_m = 1 / the user's
# rows in the group ("per_user") or 1 ("per_observation"); rows with k = 0 left out;
# fit <- lm(y ~ 1, weights = k) and vcovCR(fit, cluster = user, type = "CR0"), type = "CR2"
# (clubSandwich's default: working model Phi = I for a weighted fit) and type = "CR2",
# inverse_var = TRUE (Phi = 1 / k).
suppressPackageStartupMessages(library(clubSandwich))
args <- commandArgs(trailingOnly = TRUE)
here <- "validation/results"
data_path <- if (length(args) >= 1) args[1] else file.path(here, "parity_cr2_clubsandwich_data.csv")
points_path <- if (length(args) >= 2) args[2] else file.path(here, "parity_cr2_clubsandwich_points.csv")
out_path <- if (length(args) >= 3) args[3] else file.path(here, "parity_cr2_clubsandwich.txt")
d <- read.csv(data_path, stringsAsFactors = FALSE)
pts <- read.csv(points_path, stringsAsFactors = FALSE)
rows <- list()
for (i in seq_len(nrow(pts))) {
  for (g in sort(unique(d$group[d$dataset == pts$dataset[i]]))) {
    s <- d[d$dataset == pts$dataset[i] & d$group == g, ]
    w <- if (pts$weighting[i] == "per_user") 1 / as.numeric(table(s$user)[s$user]) else 1
    u <- (s$score - pts$point[i]) / pts$bandwidth[i]
    s$k <- w * exp(-u^2 / 2) * (abs(u) < 8)
    s <- s[s$k > 0, ]
    fit <- lm(y ~ 1, data = s, weights = k)
    v <- function(...) sprintf("%.17g", vcovCR(fit, cluster = s$user, ...)[1, 1])
    rows[[length(rows) + 1]] <- data.frame(
      dataset = pts$dataset[i], group = g, point = pts$point[i],
      cr0 = v(type = "CR0"), cr2_default = v(type = "CR2"),
      cr2_inverse_var = v(type = "CR2", inverse_var = TRUE), n_rows = nrow(s),
      n_users = length(unique(s$user))
    )
  }
}
out <- do.call(rbind, rows)
con <- file(out_path, "w")
writeLines(c(
  paste0("# clubSandwich ", as.character(packageVersion("clubSandwich")), ", ",
         R.version.string, ", run ", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")),
  "# command: Rscript validation/parity_cr2_clubsandwich.R (data written by",
  "#   python validation/parity_cr2_clubsandwich.py --write-data); per (dataset, group, point):",
  "#   vcovCR(lm(y ~ 1, weights = k), cluster = user, type = 'CR0' | 'CR2' | 'CR2' with inverse_var = TRUE)"
), con)
write.csv(out, con, row.names = FALSE, quote = FALSE)
close(con)
