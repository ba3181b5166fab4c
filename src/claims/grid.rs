//! Grids and their points: variables, each with a list of values, and every assignment of
//! one value to each variable, in one order — the first variable varying slowest, as
//! nested loops written in the variables' order. Claims, figures, declared tables and
//! sweeps all expand their grids here, so a table's rows come in the order the claim
//! computed its points and a sweep's points in the order its grid file writes them.

/// Variable assignments of a grid point, in the grid's order of its variables, as
/// written.
pub type Point = Vec<(String, String)>;

/// The positions of a grid whose axes have `sizes` values: every index vector, the first
/// axis varying slowest. A grid without axes has one position (the empty one); a grid
/// with an empty axis has none.
///
/// ```
/// use taskassign::claims::grid_positions as positions;
/// let all: Vec<Vec<usize>> = positions(&[2, 3]).collect();
/// assert_eq!(all, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
/// assert_eq!(positions(&[]).count(), 1);
/// assert_eq!(positions(&[2, 0]).count(), 0);
/// ```
pub fn positions(sizes: &[usize]) -> Positions {
    Positions {
        sizes: sizes.to_vec(),
        next: (!sizes.contains(&0)).then(|| vec![0; sizes.len()]),
    }
}

/// The iterator of [`positions`]: an odometer, last axis fastest.
#[derive(Debug, Clone)]
pub struct Positions {
    sizes: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for Positions {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut after = current.clone();
        for (a, &size) in after.iter_mut().zip(&self.sizes).rev() {
            *a += 1;
            if *a < size {
                self.next = Some(after);
                break;
            }
            *a = 0;
        }
        Some(current)
    }
}

/// Every point of a grid (variables and their values, in order), in the order of
/// [`positions`].
///
/// ```
/// use taskassign::claims::grid_points as points;
/// let g = vec![("h".to_string(), vec!["2".into(), "3".into()]), ("a".to_string(), vec!["1".into()])];
/// let p: Vec<String> = points(&g).iter().map(|p| taskassign::claims::point_label(p)).collect();
/// assert_eq!(p, ["h=2, a=1", "h=3, a=1"]);
/// ```
pub fn points(grid: &[(String, Vec<String>)]) -> Vec<Point> {
    let sizes: Vec<usize> = grid.iter().map(|(_, vals)| vals.len()).collect();
    positions(&sizes)
        .map(|at| {
            grid.iter()
                .zip(at)
                .map(|((k, vals), i)| (k.clone(), vals[i].clone()))
                .collect()
        })
        .collect()
}

/// A point as `k=v, k=v` (empty for the point of a grid without variables).
pub fn label(point: &[(String, String)]) -> String {
    point
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
