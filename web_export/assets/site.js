/* kscore static site: sorting and filtering only. A classic script (no modules: they do not load
   from file://); every page reads fully without it. */
(function () {
  'use strict';

  function cellKey(row, col, kind) {
    var cell = row.cells[col];
    if (!cell) return null;
    var v = cell.getAttribute('data-v');
    if (v === null) v = cell.textContent;
    if (kind === 'num') {
      if (v === '') return null;
      var n = parseFloat(v);
      return isNaN(n) ? null : n;
    }
    return v.trim() === '' ? null : v.toLowerCase();
  }

  /* Missing values stay last in both directions. */
  function sortTable(table, th, col, kind) {
    var body = table.tBodies[0];
    if (!body) return;
    var desc = th.getAttribute('aria-sort') === 'ascending';
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) { return { r: r, k: cellKey(r, col, kind), i: i }; });
    keyed.sort(function (a, b) {
      if (a.k === null || b.k === null) {
        if (a.k === b.k) return a.i - b.i;
        return a.k === null ? 1 : -1;
      }
      var c = kind === 'num' ? a.k - b.k : (a.k < b.k ? -1 : a.k > b.k ? 1 : 0);
      if (desc) c = -c;
      return c || a.i - b.i;
    });
    keyed.forEach(function (x) { body.appendChild(x.r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
  }

  function setupSorting(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, col) {
      var kind = th.getAttribute('data-sort');
      if (!kind) return;
      var b = document.createElement('button');
      b.type = 'button';
      while (th.firstChild) b.appendChild(th.firstChild);
      th.appendChild(b);
      b.addEventListener('click', function () { sortTable(table, th, col, kind); });
    });
  }

  function rowNames() {
    var el = document.getElementById('ks-rows');
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }

  function setupFilter(input) {
    var table = document.getElementById(input.getAttribute('data-filter'));
    if (!table || !table.tBodies[0]) return;
    var names = rowNames();
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var i = parseInt(r.getAttribute('data-i'), 10);
        var name = names && names[i] ? String(names[i].team) : r.textContent;
        r.hidden = q !== '' && name.toLowerCase().indexOf(q) < 0;
      });
    });
  }

  function setupVerdict(select) {
    var table = document.getElementById(select.getAttribute('data-verdict-filter'));
    if (!table || !table.tBodies[0]) return;
    select.addEventListener('change', function () {
      var v = select.value;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var rv = r.getAttribute('data-verdict');
        r.hidden = v !== '' && rv !== v && !(v === 'failed' && rv === 'not compiled');
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), setupSorting);
  Array.prototype.forEach.call(document.querySelectorAll('input[data-filter]'), setupFilter);
  Array.prototype.forEach.call(document.querySelectorAll('select[data-verdict-filter]'), setupVerdict);
  Array.prototype.forEach.call(document.querySelectorAll('.tools[hidden]'), function (p) { p.hidden = false; });
  document.documentElement.setAttribute('data-ks-script', 'ran');
}());
