# Weight overlap of two holdings lists: for each ticker in both, the smaller of its two weights, summed.
# Reads /inputs/portfolio.csv and /inputs/etf.csv (ticker,...,weight_pct), writes overlap.json and prints it.
import csv
import json


def holdings(path):
    with open(path, newline="") as f:
        return {row["ticker"]: float(row["weight_pct"]) for row in csv.DictReader(f)}


portfolio = holdings("/inputs/portfolio.csv")
etf = holdings("/inputs/etf.csv")
common = [t for t in portfolio if t in etf]
result = {
    "overlap_pct": round(sum(min(portfolio[t], etf[t]) for t in common), 2),
    "common": common,
    "etf_positions": len(etf),
    "etf_listed_weight_pct": round(sum(etf.values()), 2),
    "portfolio_positions": len(portfolio),
}
with open("overlap.json", "w") as out:
    out.write(json.dumps(result) + "\n")
print(json.dumps(result))
