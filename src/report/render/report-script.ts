/**
 * The page's only script, inlined: sorting of tables marked sortable (by the
 * cells' `data-value`, numbers numerically), and the company filter (hides
 * rows and sections of other companies). Without JavaScript the page is still
 * complete, just unsorted and unfiltered.
 */
import { createHash } from 'node:crypto';
import { CSV_SCRIPT } from './csv-script.js';

/** The `<script>` content. */
export const REPORT_SCRIPT = `
'use strict';
(function () {
  function key(row, index) {
    var cell = row.cells[index];
    if (!cell) return '';
    var value = cell.getAttribute('data-value');
    if (value === null) return cell.textContent || '';
    var number = Number(value);
    return value !== '' && !isNaN(number) ? number : value;
  }
  function compare(a, b) {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a).localeCompare(String(b));
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      var button = th.querySelector('button.sort');
      if (!button) return;
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(key(a, index), key(b, index));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  var filter = document.getElementById('company-filter');
  if (filter) {
    filter.addEventListener('change', function () {
      var company = filter.value;
      document.querySelectorAll('[data-company]').forEach(function (element) {
        element.hidden = company !== '' && element.getAttribute('data-company') !== company;
      });
      // Totals, the summary and sentences exist once per scope: show the chosen one.
      document.querySelectorAll('[data-scope]').forEach(function (element) {
        element.hidden = element.getAttribute('data-scope') !== (company === '' ? 'all' : company);
      });
    });
  }
})();
${CSV_SCRIPT}`;

/** The CSP source that allows exactly this script and no other. */
export const REPORT_SCRIPT_HASH = `'sha256-${createHash('sha256').update(REPORT_SCRIPT).digest('base64')}'`;
