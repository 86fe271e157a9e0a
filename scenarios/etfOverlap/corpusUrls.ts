/** Where the etf-overlap scenario's material is served (scenarios/corpora/etf, through the corpus server). */
export const FACTSHEET_URL = "https://etf.corpus.test/adiv-factsheet/";
export const FEE_ANNOUNCEMENT_URL = "https://etf.corpus.test/adiv-fee-announcement/";
export const PROSPECTUS_URL = "https://etf-files.corpus.test/adiv-prospectus.pdf";
export const HOLDINGS_CSV_URL = "https://etf-files.corpus.test/adiv-holdings.csv";
export const PORTFOLIO_CSV_URL = "https://etf-files.corpus.test/user-portfolio.csv";

/** The folder of scenarios/corpora whose pages web_search searches in this scenario. */
export const ETF_CORPUS = "etf";

/** The holdings page (linked from the factsheet), which links the holdings CSV. */
export const HOLDINGS_PAGE_URL = "https://etf.corpus.test/adiv-holdings/";
