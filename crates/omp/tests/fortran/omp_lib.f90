! The omp_lib routines a Fortran program calls (their trailing-underscore forms, and
! the _8_ ones when built with -fdefault-integer-8), with tasks, locks and a nest lock.
! Checks its own answers; prints the same under every runtime.
program omp_lib_routines
  use omp_lib
  implicit none
  integer :: i, total, inside, kind_out, chunk_out, level_seen, tasks_done
  integer(omp_lock_kind) :: lock
  integer(omp_nest_lock_kind) :: nest
  integer(kind=omp_sched_kind) :: kind
  integer(omp_allocator_handle_kind) :: aligned
  type(omp_alloctrait) :: traits(1)
  logical :: in_par
  double precision :: t0
  character(len=32) :: fmt, line

  t0 = omp_get_wtime()
  call omp_set_num_threads(3)
  if (omp_get_max_threads() /= 3) stop 'omp_set_num_threads'
  call omp_set_schedule(omp_sched_dynamic, 4)
  call omp_get_schedule(kind, chunk_out)
  kind_out = kind
  if (kind_out /= omp_sched_dynamic .or. chunk_out /= 4) stop 'omp_get_schedule'
  if (omp_in_parallel()) stop 'omp_in_parallel outside'

  total = 0
  inside = 0
  tasks_done = 0
  call omp_init_lock(lock)
  call omp_init_nest_lock(nest)
  !$omp parallel private(i, in_par) shared(total, inside, level_seen, tasks_done)
  in_par = omp_in_parallel()
  !$omp atomic
  inside = inside + merge(1, 0, in_par .and. omp_get_thread_num() < omp_get_num_threads())
  !$omp single
  level_seen = omp_get_level() * 10 + omp_get_ancestor_thread_num(0) + omp_get_team_size(0)
  do i = 1, 100
    !$omp task firstprivate(i) shared(total, tasks_done)
    call omp_set_lock(lock)
    total = total + i
    call omp_unset_lock(lock)
    call omp_set_nest_lock(nest)
    call omp_set_nest_lock(nest)
    tasks_done = tasks_done + 1
    call omp_unset_nest_lock(nest)
    call omp_unset_nest_lock(nest)
    !$omp end task
  end do
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call omp_destroy_nest_lock(nest)
  if (omp_test_lock(lock)) then
    call omp_unset_lock(lock)
  else
    stop 'omp_test_lock on a free lock'
  end if
  call omp_destroy_lock(lock)
  if (total /= 5050 .or. tasks_done /= 100) stop 'tasks under the locks'
  if (inside /= 3) stop 'members'
  if (level_seen /= 11) stop 'levels'

  call omp_set_num_teams(4)
  call omp_set_teams_thread_limit(2)
  if (omp_get_max_teams() /= 4 .or. omp_get_teams_thread_limit() /= 2) stop 'teams settings'
  if (omp_get_num_teams() /= 1 .or. omp_get_team_num() /= 0) stop 'teams outside'
  if (omp_get_initial_device() /= omp_get_device_num()) stop 'devices'
  if (.not. omp_is_initial_device()) stop 'omp_is_initial_device'

  traits(1)%key = omp_atk_alignment
  traits(1)%value = 128
  aligned = omp_init_allocator(omp_default_mem_space, 1, traits)
  if (aligned == omp_null_allocator) stop 'omp_init_allocator'
  call omp_set_default_allocator(aligned)
  if (omp_get_default_allocator() /= aligned) stop 'omp_get_default_allocator'
  call omp_set_default_allocator(omp_default_mem_alloc)
  call omp_destroy_allocator(aligned)

  call omp_set_affinity_format('T%n/%N')
  if (omp_get_affinity_format(fmt) /= 6 .or. fmt /= 'T%n/%N') stop 'affinity format'
  inside = 0
  !$omp parallel num_threads(2) private(line) reduction(+:inside)
  if (omp_capture_affinity(line, '') == 4) then
    if (line(1:2) == 'T0' .or. line(1:2) == 'T1') inside = inside + 1
  end if
  !$omp end parallel
  if (inside /= 2) stop 'omp_capture_affinity'

  if (omp_get_wtime() < t0 .or. omp_get_wtick() <= 0) stop 'clock'
  print '(a, i0, a, i0)', 'omp_lib ok ', total, ' ', tasks_done
end program
