/*
 * sort.js: click a column header of a table.sortable to sort its rows.
 *
 * Local, no dependencies, and optional: without it the tables read the same,
 * in the order the CSV has. Columns whose header has class "num" sort as
 * numbers (largest first on the first click), others as text; empty cells
 * always go last, and equal keys keep their original order.
 */
(function () {
	"use strict";

	function cellKey(row, col, numeric) {
		var cell = row.cells[col];
		var text = cell ? cell.textContent.trim() : "";
		if (text === "")
			return null;
		if (numeric) {
			var v = parseFloat(text);
			return isNaN(v) ? null : v;
		}
		return text.toLowerCase();
	}

	function sortBy(table, th, col) {
		var numeric = th.classList.contains("num");
		var current = th.getAttribute("aria-sort");
		var dir;
		if (current)
			dir = current === "ascending" ? -1 : 1;
		else
			dir = numeric ? -1 : 1;
		var body = table.tBodies[0];
		var rows = Array.prototype.map.call(body.rows, function (row, i) {
			return { row: row, key: cellKey(row, col, numeric), index: i };
		});
		rows.sort(function (a, b) {
			if (a.key === null || b.key === null) {
				if (a.key === b.key)
					return a.index - b.index;
				return a.key === null ? 1 : -1;
			}
			var c = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
			return c * dir || a.index - b.index;
		});
		Array.prototype.forEach.call(th.parentNode.cells, function (h) {
			h.removeAttribute("aria-sort");
		});
		th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
		rows.forEach(function (r) {
			body.appendChild(r.row);
		});
	}

	function makeSortable(table) {
		if (!table.tHead || !table.tBodies.length)
			return;
		var headers = table.tHead.rows[0].cells;
		Array.prototype.forEach.call(headers, function (th, col) {
			var button = document.createElement("button");
			button.type = "button";
			button.className = "sort";
			while (th.firstChild)
				button.appendChild(th.firstChild);
			th.appendChild(button);
			button.addEventListener("click", function () {
				sortBy(table, th, col);
			});
		});
	}

	Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
})();
