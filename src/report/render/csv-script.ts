/**
 * The part of the page's script that keeps each CSV link equal to what its
 * table lists: after the company filter hides rows or a header sorts them,
 * the link is rebuilt from the lines of the rows still shown, in the order
 * shown. The lines themselves are those the page was rendered with (one per
 * row, since a field never holds a line break): the script re-encodes, it
 * never formats a value again. Without JavaScript the link lists every row.
 */

/** Script text, concatenated into the page's one script (`REPORT_SCRIPT`). */
export const CSV_SCRIPT = `
(function () {
  var PREFIX = 'data:text/csv;charset=utf-8;base64,';
  function decode(href) {
    var binary = atob(href.slice(PREFIX.length));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  }
  function encode(text) {
    var bytes = new TextEncoder().encode('\\ufeff' + text);
    var binary = '';
    for (var i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return PREFIX + btoa(binary);
  }
  function rowsOf(table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    return table.tFoot ? rows.concat(Array.prototype.slice.call(table.tFoot.rows)) : rows;
  }
  var links = [];
  document.querySelectorAll('a.csv[data-table]').forEach(function (link) {
    var table = document.getElementById(link.getAttribute('data-table'));
    var href = link.getAttribute('href') || '';
    if (!table || href.indexOf(PREFIX) !== 0) return;
    var lines = decode(href).split('\\r\\n');
    var byRow = new Map();
    rowsOf(table).forEach(function (row, index) { byRow.set(row, lines[index + 1]); });
    links.push({ link: link, table: table, header: lines[0], byRow: byRow, href: href });
  });
  function update() {
    links.forEach(function (entry) {
      var shown = rowsOf(entry.table).filter(function (row) {
        return !row.hidden && !row.closest('[hidden]');
      });
      var body = shown.filter(function (row) { return row.parentNode === entry.table.tBodies[0]; });
      var csv = [entry.header].concat(shown.map(function (row) { return entry.byRow.get(row); }));
      var href = encode(csv.join('\\r\\n') + '\\r\\n');
      if (href !== entry.link.getAttribute('href')) entry.link.setAttribute('href', href);
      entry.link.textContent = 'CSV (' + body.length.toLocaleString('en-US') + (body.length === 1 ? ' row)' : ' rows)');
    });
  }
  // Rows of other scopes than the one shown start hidden: the first links leave them out too.
  update();
  document.addEventListener('change', update);
  document.addEventListener('click', function (event) {
    if (event.target instanceof Element && event.target.closest('button.sort')) update();
  });
})();
`;
