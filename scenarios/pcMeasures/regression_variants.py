"""The seven regression variants of the pc-measures robustness table, as a compute Child runs them.

Grunfeld (1950), first 200 rows: 10 firms x 1935-1954. invest on value and capital.
Each variant prints one JSON line:
  {variant, coef_value, se_value, coef_capital, se_capital, obs, significant_value}

Standard errors, with Stata's command each reproduces (N obs, K estimated coefficients, G clusters):
  ols                        conventional: s^2 (X'X)^-1, s^2 = e'e/(N-K)                  regress invest value capital
  ols_cluster_firm           (X'X)^-1 [sum_g X_g'e_g e_g'X_g] (X'X)^-1 * G/(G-1)*(N-1)/(N-K)
                                                                                            regress ..., vce(cluster firm)
  ols_cluster_firm_year      Cameron-Gelbach-Miller: V_firm + V_year - V_firm*year, each without a
                             small-sample factor; firm*year cells are single observations, so the
                             last term is HC0                                               ivreg2 ..., cluster(firm year)
  ols_driscoll_kraay_4       (X'X)^-1 S (X'X)^-1, S = Gamma_0 + sum_{j=1..4} (1 - j/5)(Gamma_j + Gamma_j'),
                             Gamma_j = sum_t h_t h_{t-j}', h_t = sum_i x_it e_it (scores summed across
                             firms within year t); Bartlett kernel, bandwidth 5; no factor  ivreg2 ..., dkraay(5)
  wls_inv_value_robust       weights w = 1/value (Stata's aweights rescale them to sum to N, which changes
                             neither coefficients nor this variance); (X'WX)^-1 [sum w_i^2 e_i^2 x_i x_i'] (X'WX)^-1
                             * N/(N-K) (HC1)                                                regress ... [aw=1/value], robust
  fe_firm_cluster_firm       firm dummies (and a constant), clustered by firm as ols_cluster_firm; K = 12
                             counts every coefficient, dummies included                     regress ... i.firm, vce(cluster firm)
  fe_firm_year_cluster_firm  firm and year dummies, clustered by firm; K = 31               regress ... i.firm i.year, vce(cluster firm)

significant_value: two-sided p < 0.05 for value's coefficient against the distribution Stata reports for
that command: t(N-K) for ols and wls, t(G-1) for the one-way cluster variants, the normal for ivreg2's.
"""
import json
import sys

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats

VARIANTS = [
    "ols",
    "ols_cluster_firm",
    "ols_cluster_firm_year",
    "ols_driscoll_kraay_4",
    "wls_inv_value_robust",
    "fe_firm_cluster_firm",
    "fe_firm_year_cluster_firm",
]


def load(csv_path):
    data = pd.read_csv(csv_path).iloc[:200].copy()
    if data["firm"].nunique() != 10 or len(data) != 200:
        raise SystemExit(f"expected 200 rows of 10 firms, got {len(data)} rows of {data['firm'].nunique()} firms")
    data["firm_id"] = pd.factorize(data["firm"])[0]
    data["year_id"] = data["year"] - data["year"].min()
    return data


def design(data, firm_fe=False, year_fe=False):
    x = data[["value", "capital"]].astype(float)
    parts = [x]
    if firm_fe:
        parts.append(pd.get_dummies(data["firm"], prefix="firm", drop_first=True, dtype=float))
    if year_fe:
        parts.append(pd.get_dummies(data["year"], prefix="year", drop_first=True, dtype=float))
    return sm.add_constant(pd.concat(parts, axis=1))


def fit(variant, data):
    y = data["invest"].astype(float)
    firms = data["firm_id"].to_numpy()
    if variant == "ols":
        return sm.OLS(y, design(data)).fit(), "t"
    if variant == "ols_cluster_firm":
        return sm.OLS(y, design(data)).fit(cov_type="cluster", cov_kwds={"groups": firms}), "cluster"
    if variant == "ols_cluster_firm_year":
        groups = np.column_stack([firms, data["year_id"].to_numpy()])
        return sm.OLS(y, design(data)).fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}), "z"
    if variant == "ols_driscoll_kraay_4":
        # statsmodels sums the scores of consecutive rows with the same time: sort by year first.
        by_year = data.sort_values(["year", "firm_id"], kind="stable")
        result = sm.OLS(by_year["invest"].astype(float), design(by_year)).fit(
            cov_type="nw-groupsum", cov_kwds={"time": by_year["year_id"].to_numpy(), "maxlags": 4, "use_correction": False}
        )
        return result, "z"
    if variant == "wls_inv_value_robust":
        return sm.WLS(y, design(data), weights=1.0 / data["value"]).fit(cov_type="HC1"), "t"
    if variant == "fe_firm_cluster_firm":
        return sm.OLS(y, design(data, firm_fe=True)).fit(cov_type="cluster", cov_kwds={"groups": firms}), "cluster"
    if variant == "fe_firm_year_cluster_firm":
        return sm.OLS(y, design(data, firm_fe=True, year_fe=True)).fit(cov_type="cluster", cov_kwds={"groups": firms}), "cluster"
    raise SystemExit(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")


def run_variant(variant, csv_path):
    data = load(csv_path)
    result, reference = fit(variant, data)
    coef, se = result.params, result.bse
    t_value = coef["value"] / se["value"]
    if reference == "z":
        p_value = 2 * stats.norm.sf(abs(t_value))
    else:
        df = data["firm_id"].nunique() - 1 if reference == "cluster" else int(result.nobs) - len(coef)
        p_value = 2 * stats.t.sf(abs(t_value), df)
    return {
        "variant": variant,
        "coef_value": float(coef["value"]),
        "se_value": float(se["value"]),
        "coef_capital": float(coef["capital"]),
        "se_capital": float(se["capital"]),
        "obs": int(result.nobs),
        "significant_value": bool(p_value < 0.05),
    }


def print_variant(variant, csv_path="/inputs/grunfeld.csv"):
    print(json.dumps(run_variant(variant, csv_path)))


if __name__ == "__main__" and len(sys.argv) > 1:
    for name in (VARIANTS if sys.argv[1] == "all" else sys.argv[1:2]):
        print_variant(name, sys.argv[2] if len(sys.argv) > 2 else "/inputs/grunfeld.csv")
